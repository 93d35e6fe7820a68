"""The main job's Python half: the network of examples/example.cpp (1 -> 16 -> 1, tanh, on
y = sin(x)), trained from Python with opcore's generated bindings and autograd. Same data,
same closed-form initial weights, same steps: it prints the same losses as the C++ program
(and tests/train/test_mlp_reference.py's numpy rerun of it).

    scripts/main.sh                      # builds, runs examples/example.cpp, then this
    python3 examples/example.py          # after `scripts/main.sh` (it installs opcore.pth)
"""
import math

import opcore


def wave_init(rows, cols, a, b, c, scale, shape, device):
    """Element (i, j) is scale * sin(a*i + b*j + c): deterministic weights numpy can reproduce."""
    values = [[scale * math.sin(a * i + b * j + c) for j in range(cols)] for i in range(rows)]
    return opcore.tensor(values, dtype=opcore.float64).reshape(shape).to(device).requires_grad_()


def train_mlp(n=64, hidden=16, steps=2000, lr=0.05, device="cpu"):
    """Trains on `device` (examples/backend trains on its own): the printed values are copied
    to the CPU."""
    xs = [-3.0 + 6.0 * i / (n - 1) for i in range(n)]
    x = opcore.tensor(xs, dtype=opcore.float64)[:, None].to(device)             # n x 1
    y = opcore.tensor([math.sin(v) for v in xs], dtype=opcore.float64)[:, None].to(device)
    w1 = wave_init(1, hidden, 1.0, 0.7, 0.3, 1.0, [1, hidden], device)
    b1 = wave_init(1, hidden, 0.0, 1.3, 0.9, 1.0, [hidden], device)
    w2 = wave_init(hidden, 1, 1.1, 0.0, 0.2, 0.25, [hidden, 1], device)
    b2 = opcore.zeros(1, dtype=opcore.float64).to(device).requires_grad_()

    def model(inputs):
        return (inputs @ w1 + b1).tanh() @ w2 + b2

    print(f"mlp 1 -> {hidden} -> 1 (tanh) on y = sin(x), {n} points, lr = {lr:g} (Python)")
    for step in range(steps + 1):
        residual = model(x) - y
        loss = (residual * residual).mean()
        if step % 200 == 0:
            print(f"step {step:4d}  loss = {loss.cpu().item():.12g}")
        loss.backward()
        with opcore.no_grad():               # the update itself is not recorded
            for p in (w1, b1, w2, b2):
                p.sub_(p.grad, alpha=lr)
                p.grad = None                # the next backward() starts from zero
    with opcore.no_grad():
        prediction = model(opcore.tensor([[-2.0], [1.0]], dtype=opcore.float64).to(device)).cpu()
    print(f"mlp(-2) = {prediction[0].item():.4f} (sin: {math.sin(-2.0):.4f}), "
          f"mlp(1) = {prediction[1].item():.4f} (sin: {math.sin(1.0):.4f})")


if __name__ == "__main__":
    train_mlp()
