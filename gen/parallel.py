"""A piece of work run in a forked helper process while the caller goes on (Note [Generation
in two processes] in gen/emit/files.py)."""
from __future__ import annotations

import os
import pickle
import signal
import threading
import traceback
from typing import Callable, Generic, Optional, TypeVar

_Result = TypeVar("_Result")


def processors() -> int:
    """The processors this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


class Helper(Generic[_Result]):
    """Runs `work` (whose result pickles) in a forked child from construction on, when this
    process may use a second processor and can fork; result() waits for it. Otherwise (one
    processor, or fork() fails) `work` runs in this process when result() is first called.
    close() stops a child still running (the caller failed). Use it as a context manager.

    The child sends its result (or its traceback) through a pipe, which a thread of this
    process empties as it fills (a pipe holds a few pages; a file would count against the
    process's file size limit and its disk), and leaves with os._exit, so it runs none of the
    caller's exit handlers and flushes none of its buffers."""

    def __init__(self, work: Callable[[], _Result]) -> None:
        self._work = work
        self._pid = 0
        self._done = False
        self._result: _Result
        self._received = b""
        self._reader: Optional[threading.Thread] = None
        if processors() > 1 and hasattr(os, "fork"):
            read_end, write_end = os.pipe()
            try:
                self._pid = os.fork()
            except OSError:  # out of processes or memory: the work runs in this process
                os.close(read_end)
                os.close(write_end)
                return
            if self._pid == 0:
                os.close(read_end)
                self._child(write_end)
            os.close(write_end)
            self._reader = threading.Thread(target=self._receive, args=(read_end,), daemon=True)
            self._reader.start()

    def _child(self, write_end: int) -> None:
        status = 1
        try:
            try:
                payload = (self._work(), None)
            except BaseException:  # noqa: B036 - sent to the parent, which raises it
                payload = (None, traceback.format_exc())
            with os.fdopen(write_end, "wb") as pipe:
                pickle.dump(payload, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            status = 0
        finally:
            os._exit(status)

    def _receive(self, read_end: int) -> None:
        with os.fdopen(read_end, "rb") as pipe:
            self._received = pipe.read()

    def result(self) -> _Result:
        if not self._done:
            self._result = self._work() if self._reader is None else self._wait()
            self._done = True
        return self._result

    def _wait(self) -> _Result:
        _, status = os.waitpid(self._pid, 0)
        self._pid = 0
        assert self._reader is not None
        self._reader.join()
        if status != 0:
            raise RuntimeError(f"the generator's helper process ended with status "
                               f"{os.waitstatus_to_exitcode(status)}")
        result, error = pickle.loads(self._received)
        self._received = b""
        if error is not None:
            raise RuntimeError(f"the generator's helper process failed:\n{error}")
        return result

    def close(self) -> None:
        if self._pid:
            os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = 0
        if self._reader is not None:
            self._reader.join()  # the pipe's write end closed with the child

    def __enter__(self) -> Helper[_Result]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
