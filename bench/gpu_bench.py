"""GPU figures of issue 35 against torch on the same GPU, in one run (scripts/gpu_check.sh runs
this where a GPU is lent; bench/README.md records its output with the machine):
  - add out= of 16M and 256M elements, float32 and bfloat16, in GB/s (3 tensors' bytes moved),
    beside a device-to-device copy's bandwidth (2 tensors' bytes);
  - an allocating add of 1-element tensors, in microseconds per call from Python (the caching
    allocator's case: no cudaMalloc on the call path);
  - sum of 256M float32 elements (GB/s read), softmax over rows of 4096 and layer_norm over 1024
    features (GB/s read and written), mm of 8192 x 8192 bfloat16 matrices (TFLOP/s);
  - copies of 64 MiB between host and GPU, from and to pageable and pinned memory (GB/s; the
    pinned ones non_blocking, as a data loader's are).
Each figure is the best of --runs timed loops, each loop after an untimed one of the same
length, the device synchronized around it.

    PYTHONPATH=build-gpu/python python3 bench/gpu_bench.py --runs 5
    PYTHONPATH=build/python python3 bench/gpu_bench.py --device cpu --sizes 10 --runs 1  # the script alone
"""
import argparse
import time

import opcore


def best_seconds(fn, sync, iters, runs):
    best = float("inf")
    for _ in range(runs):
        for _ in range(iters):  # untimed: clocks up, caches warm
            fn()
        sync()
        start = time.perf_counter()
        for _ in range(iters):
            fn()
        sync()
        best = min(best, (time.perf_counter() - start) / iters)
    return best


def same_values(torch, shape, dtype, dev):
    """(opcore tensor, torch tensor) holding the same random values on `dev`."""
    t = torch.randn(*shape, dtype=torch.float32).to(getattr(torch, dtype))
    o = opcore.tensor(t.float().numpy()).to(getattr(opcore, dtype))
    return o.to(dev), t.to(dev)


def row(case, o, t, unit, higher_is_better=True):
    ratio = o / t if higher_is_better else t / o
    print(f"| {case} | {o:.1f} {unit} | {t:.1f} {unit} | {ratio:.2f}x |")


def big_cases(torch, dev, scale, osync, tsync, runs):
    """The reductions, row kernels and the product of the issue's speed list."""
    n = (1 << 28) // scale
    oa, ta = same_values(torch, (n,), "float32", dev)
    gbs = lambda seconds: 4 * n / seconds / 1e9  # noqa: E731
    row(f"sum of {n:,} float32", gbs(best_seconds(lambda: oa.sum(), osync, 5, runs)),
        gbs(best_seconds(lambda: ta.sum(), tsync, 5, runs)), "GB/s")
    rows = 16384 // scale
    ox, tx = same_values(torch, (rows, 4096), "float32", dev)
    moved = lambda seconds: 2 * 4 * rows * 4096 / seconds / 1e9  # noqa: E731
    row(f"softmax over rows of 4096 ({rows:,} rows, float32)",
        moved(best_seconds(lambda: opcore.softmax(ox, -1), osync, 10, runs)),
        moved(best_seconds(lambda: torch.softmax(tx, -1), tsync, 10, runs)), "GB/s")
    rows = 65536 // scale
    ox, tx = same_values(torch, (rows, 1024), "float32", dev)
    moved = lambda seconds: 2 * 4 * rows * 1024 / seconds / 1e9  # noqa: E731
    row(f"layer_norm over 1024 features ({rows:,} rows, float32)",
        moved(best_seconds(lambda: opcore.nn.functional.layer_norm(ox, (1024,)), osync, 10, runs)),
        moved(best_seconds(lambda: torch.nn.functional.layer_norm(tx, (1024,)), tsync, 10, runs)), "GB/s")
    m = 8192 // scale
    oa, ta = same_values(torch, (m, m), "bfloat16", dev)
    ob, tb = same_values(torch, (m, m), "bfloat16", dev)
    flops = lambda seconds: 2 * m ** 3 / seconds / 1e12  # noqa: E731
    row(f"mm {m} x {m} bfloat16", flops(best_seconds(lambda: opcore.mm(oa, ob), osync, 5, runs)),
        flops(best_seconds(lambda: torch.mm(ta, tb), tsync, 5, runs)), "TFLOP/s")


def host_copies(torch, osync, tsync, runs):
    """copy_ of 64 MiB each way between the host and the GPU, pageable and pinned."""
    n = 1 << 24
    og, tg = opcore.ones(n, device="cuda"), torch.ones(n, device="cuda")
    gbs = lambda seconds: 4 * n / seconds / 1e9  # noqa: E731
    for pinned in (False, True):
        oh, th = opcore.ones(n), torch.ones(n)
        if pinned:
            oh, th = oh.pin_memory(), th.pin_memory()
        kind = "pinned, non_blocking" if pinned else "pageable"
        row(f"host to GPU, 64 MiB ({kind})",
            gbs(best_seconds(lambda: og.copy_(oh, non_blocking=pinned), osync, 10, runs)),
            gbs(best_seconds(lambda: tg.copy_(th, non_blocking=pinned), tsync, 10, runs)), "GB/s")
        row(f"GPU to host, 64 MiB ({kind})",
            gbs(best_seconds(lambda: oh.copy_(og, non_blocking=pinned), osync, 10, runs)),
            gbs(best_seconds(lambda: th.copy_(tg, non_blocking=pinned), tsync, 10, runs)), "GB/s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sizes", type=int, nargs="+", default=[24, 28], help="log2 of the element counts")
    parser.add_argument("--device", default="cuda", help="cpu: a quick run of the script itself, without a GPU")
    args = parser.parse_args()
    import torch

    dev = args.device
    gpu = dev == "cuda"
    print(f"device: {torch.cuda.get_device_name(0) if gpu else dev}; torch {torch.__version__}")
    osync, tsync = (opcore.cuda.synchronize, torch.cuda.synchronize) if gpu else (lambda: None, lambda: None)
    print("| case | opcore | torch | opcore / torch |")
    print("| --- | --- | --- | --- |")
    for n in (1 << k for k in args.sizes):
        for oname, tname in (("float32", "float32"), ("bfloat16", "bfloat16")):
            odt, tdt = getattr(opcore, oname), getattr(torch, tname)
            oa, ob, oc = (opcore.ones(n, dtype=odt, device=dev) for _ in range(3))
            ta, tb, tc = (torch.ones(n, dtype=tdt, device=dev) for _ in range(3))
            iters = 20 if n < (1 << 26) else 5
            nbytes = 3 * n * oa.element_size()
            o = nbytes / best_seconds(lambda: opcore.add(oa, ob, out=oc), osync, iters, args.runs) / 1e9
            t = nbytes / best_seconds(lambda: torch.add(ta, tb, out=tc), tsync, iters, args.runs) / 1e9
            print(f"| add out= {n:,} {oname} | {o:.0f} GB/s | {t:.0f} GB/s | {o / t:.2f}x |")
            o_copy = 2 * n * oa.element_size() / best_seconds(lambda: oc.copy_(oa), osync, iters, args.runs) / 1e9
            t_copy = 2 * n * oa.element_size() / best_seconds(lambda: tc.copy_(ta), tsync, iters, args.runs) / 1e9
            print(f"| copy_ {n:,} {oname} (same device) | {o_copy:.0f} GB/s | {t_copy:.0f} GB/s | "
                  f"{o_copy / t_copy:.2f}x |")
    scale = 1 if gpu else 64  # --device cpu: the same cases, smaller
    big_cases(torch, dev, scale, osync, tsync, args.runs)
    oa, ta = opcore.ones(1, device=dev), torch.ones(1, device=dev)
    o = best_seconds(lambda: opcore.add(oa, oa), osync, 10000, args.runs) * 1e6
    t = best_seconds(lambda: torch.add(ta, ta), tsync, 10000, args.runs) * 1e6
    print(f"| add, 1 element, allocating (Python) | {o:.2f} us | {t:.2f} us | {o / t:.2f}x time |")
    if gpu:
        host_copies(torch, osync, tsync, args.runs)
        print(f"opcore.cuda.memory_stats(): {opcore.cuda.memory_stats()}")


if __name__ == "__main__":
    main()
