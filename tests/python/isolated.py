"""Runs Python code in a fresh interpreter, for the tests whose failure mode is a crash (fuzzing,
malformed input, signals): a segfault or abort there fails one test instead of ending the run."""
import os
import subprocess
import sys
import textwrap

import opcore

# The directory holding the opcore package under test, for the children's PYTHONPATH.
OPCORE_PATH = os.path.dirname(os.path.dirname(os.path.abspath(opcore.__file__)))


def child_env():
    """This process's environment (sanitizer settings included), with opcore importable and
    faulthandler on, so that a crash prints the Python stack of the failing call."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (OPCORE_PATH, env.get("PYTHONPATH", "")) if p)
    env["PYTHONFAULTHANDLER"] = "1"
    return env


def run_python(code, timeout=60):
    """Runs `code` (dedented) in a fresh interpreter; returns the CompletedProcess (text output).
    A crash shows as a negative returncode."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(), capture_output=True,
                          text=True, timeout=timeout)


def describe(proc):
    """The returncode and the tails of stdout and stderr, for assertion messages."""
    return (f"returncode {proc.returncode}\n--- stdout (tail)\n{proc.stdout[-3000:]}\n"
            f"--- stderr (tail)\n{proc.stderr[-3000:]}")
