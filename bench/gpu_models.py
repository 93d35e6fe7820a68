"""The showcase models on the GPU (issue 35): examples/digits.py and examples/charlm.py, each run
three times in one run of this script: with opcore on the CPU, with opcore on the GPU, and with
torch in opcore's place on the GPU. The examples call PyTorch's names only, so torch runs the same
file unchanged, with `opcore` naming torch (--as-torch). (bench/aten_cases/models.py times a
step on the CPU against a torch twin written out, as Debian's torch 1.13 has no
scaled_dot_product_attention; the GPU machine's torch has it.) It prints each run's time per training
step and losses, and the largest relative difference between opcore's GPU and CPU losses: both
devices draw the same weights, batches and dropout masks from one generator, so only the
rounding of the GPU's sums and functions differs (tests/python/test_cuda_ops.py holds the
models' losses on both devices to a tolerance). torch draws other numbers, so only its time is
compared. scripts/gpu_check.sh runs this where a GPU is lent; bench/README.md records it.

    PYTHONPATH=build-gpu/python python3 bench/gpu_models.py
    PYTHONPATH=build/python python3 bench/gpu_models.py --device cpu --models digits   # the script alone
"""
import argparse
import re
import runpy
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
# Each model's arguments: a few hundred training steps, so the three runs take seconds on a GPU.
MODELS = {"digits": ["--epochs", "5"], "charlm": ["--steps", "200"]}


def run_as_torch(script, args):
    """Runs `script` with `import opcore` (and its nn.functional) giving torch's modules."""
    import torch
    import torch.nn.functional

    sys.modules.update({"opcore": torch, "opcore.nn": torch.nn, "opcore.nn.functional": torch.nn.functional})
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")


def train(model, device, library):
    """(losses, milliseconds per training step) of one run, from what the example prints."""
    command = [sys.executable, str(EXAMPLES / f"{model}.py"), *MODELS[model], "--device", device]
    if library == "torch":
        command[1:1] = [__file__, "--as-torch"]
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{model} with {library} on {device} failed:\n{result.stderr[-2000:]}")
    losses = [float(v) for v in re.findall(r"loss (\d+\.\d+)", result.stdout)]
    step_ms = float(re.search(r"([\d.]+) ms per training step", result.stdout).group(1))
    return losses, step_ms


def main():
    if sys.argv[1:2] == ["--as-torch"]:
        return run_as_torch(sys.argv[2], sys.argv[3:])
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", default="cuda", help="cpu: a quick run of the script itself, without a GPU")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    args = parser.parse_args()
    dev = "GPU" if args.device == "cuda" else args.device
    print(f"| model | opcore, CPU | opcore, {dev} | torch, {dev} | opcore / torch, {dev} time | "
          f"largest loss difference, {dev} / CPU |")
    print("| --- | --- | --- | --- | --- | --- |")
    for model in args.models:
        cpu_losses, cpu_ms = train(model, "cpu", "opcore")
        gpu_losses, gpu_ms = train(model, args.device, "opcore")
        _, torch_ms = train(model, args.device, "torch")
        differences = [abs(g - c) / abs(c) for g, c in zip(gpu_losses, cpu_losses)]
        worst = max(differences) if len(gpu_losses) == len(cpu_losses) else float("nan")
        print(f"| {model} ({' '.join(MODELS[model])}) | {cpu_ms:.2f} ms | {gpu_ms:.2f} ms | {torch_ms:.2f} ms | "
              f"{gpu_ms / torch_ms:.2f}x | {worst:.1e} |")
        print(f"  losses, CPU: {cpu_losses}\n  losses, {dev}: {gpu_losses}")


if __name__ == "__main__":
    main()
