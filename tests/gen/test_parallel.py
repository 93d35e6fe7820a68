"""The generator's helper process (gen/parallel.py; Note [Generation in two processes] in
gen/emit/files.py): its result, its errors, stopping it, and the outputs it renders, byte for
byte the same as when this process renders them all."""
from __future__ import annotations

import os
import time

import pytest
from genutil import REPO

from gen import parallel, pipeline


@pytest.fixture(params=[1, 2], ids=["in-process", "forked"])
def processors(request, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(parallel, "processors", lambda: request.param)
    return request.param


def test_the_result_comes_back(processors: int) -> None:
    with parallel.Helper(lambda: (os.getpid(), {"big": b"x" * 1_000_000})) as helper:
        pid, data = helper.result()
        assert helper.result()[0] == pid  # asked twice, run once
    assert data == {"big": b"x" * 1_000_000}
    assert (pid == os.getpid()) == (processors == 1)


def test_an_error_in_the_helper_is_raised_with_its_traceback(processors: int) -> None:
    def fail() -> None:
        raise KeyError("no such view")
    with parallel.Helper(fail) as helper:
        with pytest.raises(RuntimeError if processors > 1 else KeyError) as e:
            helper.result()
    if processors > 1:  # the child's traceback, as text
        assert "the generator's helper process failed" in str(e.value)
        assert "in fail" in str(e.value) and "KeyError: 'no such view'" in str(e.value)


def test_a_failed_fork_runs_the_work_here(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "processors", lambda: 2)

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")
    monkeypatch.setattr(os, "fork", no_fork)
    with parallel.Helper(os.getpid) as helper:
        assert helper.result() == os.getpid()


def test_closing_stops_a_helper_still_running(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "processors", lambda: 2)
    start = time.monotonic()
    helper = parallel.Helper(lambda: time.sleep(60))
    pid = helper._pid
    helper.close()
    assert time.monotonic() - start < 30
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # killed and reaped


def test_the_outputs_and_inputs_do_not_depend_on_the_helper(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = []
    for count in (1, 2):
        monkeypatch.setattr(parallel, "processors", lambda: count)
        runs.append(pipeline.generate(str(REPO / "yaml")))
    alone, helped = runs
    assert [path for path, _ in helped.files] == [path for path, _ in alone.files]
    assert helped.files == alone.files
    assert helped.inputs == alone.inputs  # the templates the helper read are in the depfile
    assert any(path.endswith("Autograd.cpp.j2") for path in helped.inputs)
