"""The main job's network training (examples/example.cpp, trainMlp in examples/mlp.h) against an
independent numpy reference: same data, same closed-form initial weights, the same forward pass, gradients
derived by hand (no autograd), and the same SGD steps. The printed losses must agree to 1e-9.

ctest runs it with OPCORE_EXAMPLE set to the example binary (CMakeLists.txt, test
`train_reference`); by hand: OPCORE_EXAMPLE=build/opcore_example python3 -m pytest tests/train
"""
import math
import os
import re
import subprocess

import numpy as np
import pytest

# Must match trainMlp() in examples/mlp.h; the header line it prints is checked below.
N, HIDDEN, LR, STEPS, PRINT_EVERY = 64, 16, 0.05, 2000, 200
REL_TOL = 1e-9


def wave_init(rows, cols, a, b, c, scale):
    """waveInit in example.cpp: element (i, j) is scale * sin(a*i + b*j + c) (libm's sin, as C++)."""
    return np.array([[scale * math.sin(a * i + b * j + c) for j in range(cols)] for i in range(rows)])


def reference_run():
    """Returns ({step: loss} for the printed steps, predictions at x = -2 and x = 1)."""
    x = np.array([[-3.0 + 6.0 * i / (N - 1)] for i in range(N)])   # N x 1
    y = np.array([[math.sin(v)] for v in x[:, 0]])                  # N x 1
    w1 = wave_init(1, HIDDEN, 1.0, 0.7, 0.3, 1.0)                   # 1 x H
    b1 = wave_init(1, HIDDEN, 0.0, 1.3, 0.9, 1.0)                   # 1 x H (a [H] vector in C++)
    w2 = wave_init(HIDDEN, 1, 1.1, 0.0, 0.2, 0.25)                  # H x 1
    b2 = np.zeros((1, 1))

    losses = {}
    for step in range(STEPS + 1):
        # Forward: h = tanh(x w1 + b1), p = h w2 + b2, loss = mean((p - y)^2).
        h = np.tanh(x @ w1 + b1)
        r = h @ w2 + b2 - y
        if step % PRINT_EVERY == 0:
            losses[step] = float(np.mean(r * r))
        # Backward, by hand.
        d_p = 2.0 * r / N                        # d loss / d p
        d_w2 = h.T @ d_p
        d_b2 = d_p.sum(axis=0, keepdims=True)    # b2 was broadcast over the rows
        d_z = (d_p @ w2.T) * (1.0 - h * h)       # tanh' = 1 - tanh^2
        d_w1 = x.T @ d_z
        d_b1 = d_z.sum(axis=0, keepdims=True)
        # SGD.
        w1 -= LR * d_w1
        b1 -= LR * d_b1
        w2 -= LR * d_w2
        b2 -= LR * d_b2
    probe = np.array([[-2.0], [1.0]])
    prediction = np.tanh(probe @ w1 + b1) @ w2 + b2
    return losses, prediction[:, 0]


@pytest.fixture(scope="module")
def reference():
    return reference_run()


@pytest.fixture(scope="module")
def example_output():
    binary = os.environ.get("OPCORE_EXAMPLE")
    if not binary:
        pytest.skip("OPCORE_EXAMPLE is not set (ctest sets it to the opcore_example binary)")
    done = subprocess.run([binary], capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, f"{binary} exited with {done.returncode}:\n{done.stderr}"
    return done.stdout


def test_header_matches_the_reference_settings(example_output):
    assert f"mlp 1 -> {HIDDEN} -> 1 (tanh) on y = sin(x), {N} points, lr = {LR:g}" in example_output


def test_losses_match_numpy(example_output, reference):
    printed = {int(m[1]): float(m[2])
               for m in re.finditer(r"^step +(\d+)  loss = (\S+)$", example_output, re.M)}
    expected, _ = reference
    assert sorted(printed) == sorted(expected), "printed steps differ from the reference's"
    for step, loss in expected.items():
        assert printed[step] == pytest.approx(loss, rel=REL_TOL, abs=0), f"step {step}"
    # The training works: the loss falls at every printed step, by two orders of magnitude.
    values = [printed[s] for s in sorted(printed)]
    assert all(a > b for a, b in zip(values, values[1:])), values
    assert values[-1] < values[0] / 100, values


def test_predictions_match_numpy(example_output, reference):
    m = re.search(r"^mlp\(-2\) = (\S+) \(sin: \S+\), mlp\(1\) = (\S+) \(sin: \S+\)$", example_output, re.M)
    assert m, example_output
    _, prediction = reference
    # Printed with 4 decimals.
    assert float(m[1]) == pytest.approx(prediction[0], abs=5.1e-5)
    assert float(m[2]) == pytest.approx(prediction[1], abs=5.1e-5)
