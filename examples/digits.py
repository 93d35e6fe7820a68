"""A small convolutional network, trained from Python with opcore (the showcase of issue #34), on
the 1,797 8x8 handwritten digits that Debian's python3-sklearn ships (UCI's "Optical
Recognition of Handwritten Digits", /usr/lib/python3/dist-packages/sklearn/datasets/data/
digits.csv.gz): two 3x3 convolutions with ReLU and 2x2 max pooling, a linear classifier,
cross-entropy, and SGD with momentum written with in-place operators. It trains on the first
1,500 digits and reports its accuracy on the other 297, which it never saw.

examples/digits.cpp is the same program in C++: from the same seed it draws the same weights
and batches and prints the same losses and accuracy (tests/train/test_digits.py checks it).

    scripts/main.sh                      # builds and runs both, after the main job
    python3 examples/digits.py [--epochs N] [--device cuda]
"""
import argparse
import gzip
import time

import opcore
import opcore.nn.functional as F

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
TRAIN, BATCH, LR, MOMENTUM, SEED = 1500, 50, 0.05, 0.9, 1234


def load(path):
    """The images as [1797, 1, 8, 8] float32 in [0, 1] and the labels as [1797] int64."""
    with gzip.open(path, "rt") as f:
        rows = [[int(v) for v in line.split(",")] for line in f]
    data = opcore.tensor(rows)
    return (data[:, :64].to(opcore.float32) / 16).view(-1, 1, 8, 8), data[:, 64].clone()


class ConvNet:
    """conv 1 -> 16 (3x3) - relu - maxpool 2 - conv 16 -> 32 (3x3) - relu - maxpool 2 - linear
    128 -> 10, weights drawn (in this order, as the C++ program draws them) with PyTorch's
    default scale, uniform in +-1 / sqrt(fan_in)."""

    def __init__(self):
        def uniform(fan_in, *shape):
            bound = fan_in ** -0.5
            return (opcore.rand(*shape) * (2 * bound) - bound).requires_grad_()

        self.conv1_weight, self.conv1_bias = uniform(9, 16, 1, 3, 3), uniform(9, 16)
        self.conv2_weight, self.conv2_bias = uniform(144, 32, 16, 3, 3), uniform(144, 32)
        self.fc_weight, self.fc_bias = uniform(128, 10, 128), uniform(128, 10)

    def parameters(self):
        return [self.conv1_weight, self.conv1_bias, self.conv2_weight, self.conv2_bias, self.fc_weight, self.fc_bias]

    def to(self, device):
        """The parameters moved to `device` (drawn on the CPU, so every device starts alike)."""
        for name in ("conv1_weight", "conv1_bias", "conv2_weight", "conv2_bias", "fc_weight", "fc_bias"):
            setattr(self, name, getattr(self, name).detach().to(device).requires_grad_())
        return self

    def __call__(self, x):
        x = F.max_pool2d(F.relu(F.conv2d(x, self.conv1_weight, self.conv1_bias, padding=1)), 2)   # [N, 16, 4, 4]
        x = F.max_pool2d(F.relu(F.conv2d(x, self.conv2_weight, self.conv2_bias, padding=1)), 2)   # [N, 32, 2, 2]
        return F.linear(x.flatten(1), self.fc_weight, self.fc_bias)


@opcore.no_grad()
def accuracy(model, images, labels):
    return (model(images).argmax(1) == labels).to(opcore.float32).mean().item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--device", default="cpu", help="where to train: cpu (default) or cuda")
    args = parser.parse_args()
    images, labels = load(DIGITS)
    images, labels = images.to(args.device), labels.to(args.device)
    train_x, train_y, test_x, test_y = images[:TRAIN], labels[:TRAIN], images[TRAIN:], labels[TRAIN:]
    opcore.manual_seed(SEED)
    model = ConvNet().to(args.device)
    params = model.parameters()
    velocity = [opcore.zeros_like(p) for p in params]
    print(f"digits (Python): {sum(p.numel() for p in params)} parameters; {TRAIN} training and "
          f"{images.size(0) - TRAIN} test images of {DIGITS}")
    steps, seconds = 0, 0.0
    for epoch in range(1, args.epochs + 1):
        start = time.perf_counter()
        order = opcore.randperm(TRAIN)
        total = 0.0
        for first in range(0, TRAIN, BATCH):
            batch = order[first:first + BATCH]
            loss = F.cross_entropy(model(train_x[batch]), train_y[batch])
            loss.backward()
            with opcore.no_grad():
                for p, v in zip(params, velocity):
                    v.mul_(MOMENTUM).add_(p.grad)
                    p.sub_(v, alpha=LR)
                    p.grad = None
            total += loss.item()
            steps += 1
        seconds += time.perf_counter() - start
        print(f"epoch {epoch:2d}  loss {total / (TRAIN // BATCH):.4f}  test accuracy {accuracy(model, test_x, test_y):.4f}")
    print(f"{seconds / steps * 1e3:.2f} ms per training step")


if __name__ == "__main__":
    main()
