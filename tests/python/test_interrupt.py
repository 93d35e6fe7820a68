"""Ctrl-C while opcore computes: the kernels run without the GIL, and SIGINT must still end the
program with KeyboardInterrupt (not a hang or a crash), or be catchable by the script."""
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from isolated import child_env


LOOPS = {
    "matmul": """
        a = opcore.rand(300, 300)
        while True:
            a2 = opcore.mm(a, a)
    """,
    "long-kernel": """
        a = opcore.rand(1500, 1500)
        while True:
            a2 = a @ a
    """,
    "operators": """
        a = opcore.ones(1000)
        while True:
            a2 = (a + 1) * 2 - a
    """,
    "backward": """
        x = opcore.rand(200, 200, requires_grad=True)
        while True:
            (x @ x).sum().backward()
    """,
}


def start(body, prologue=""):
    code = "import opcore\n" + textwrap.dedent(prologue) + "print('ready', flush=True)\n" + textwrap.dedent(body)
    proc = subprocess.Popen([sys.executable, "-c", code], env=child_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert line == "ready\n", proc.communicate(timeout=30)
    time.sleep(0.3)  # let it get into the loop
    return proc


def interrupt(proc, timeout=30):
    proc.send_signal(signal.SIGINT)
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"no exit within {timeout} s of SIGINT (hang)\nstdout: {out}\nstderr: {err}")


@pytest.mark.parametrize("body", list(LOOPS.values()), ids=list(LOOPS))
def test_sigint_raises_keyboard_interrupt(body):
    proc = start(body)
    out, err = interrupt(proc)
    assert "KeyboardInterrupt" in err, err
    assert "Fatal Python error" not in err, err
    # An uncaught KeyboardInterrupt ends the interpreter by SIGINT (or status 1 on old Pythons).
    assert proc.returncode in (-signal.SIGINT, 1), (proc.returncode, err)


def test_keyboard_interrupt_can_be_caught_and_opcore_keeps_working():
    body = LOOPS["long-kernel"]
    wrapped = "try:\n" + textwrap.indent(textwrap.dedent(body), "    ") + (
        "except KeyboardInterrupt:\n"
        "    print('caught', flush=True)\n"
        "print((opcore.ones(2, 2) @ opcore.ones(2, 2)).tolist(), flush=True)\n")
    proc = start(wrapped)
    out, err = interrupt(proc)
    assert proc.returncode == 0, err
    assert out.splitlines()[-2:] == ["caught", "[[2.0, 2.0], [2.0, 2.0]]"], (out, err)
