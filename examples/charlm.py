"""A character-level transformer language model, trained from Python with opcore (the showcase
of issue #34): token and position embeddings, blocks of causal self-attention and a GELU MLP,
each behind a layer norm, a linear head, cross-entropy, dropout, and AdamW written with
in-place operators. It learns the text of the GNU GPL version 3 as Debian ships it
(/usr/share/common-licenses/GPL-3, from base-files: on every Debian system), then writes a
few lines of its own.

examples/charlm.cpp is the same program in C++. From the same seed both draw the same
weights, batches and dropout masks from opcore's generator, and every operator gives the same
bits from either language, so they print the same losses and the same text
(tests/train/test_charlm.py checks it, and that the loss falls).

    scripts/main.sh                      # builds and runs both, after the main job
    python3 examples/charlm.py [--steps N] [--device cuda]
"""
import argparse
import math
import time

import opcore
import opcore.nn.functional as F

TEXT = "/usr/share/common-licenses/GPL-3"
CONTEXT, BATCH, WIDTH, HEADS, LAYERS = 64, 16, 64, 4, 2
LR, BETA1, BETA2, EPS, WEIGHT_DECAY, DROPOUT = 3e-3, 0.9, 0.99, 1e-8, 0.01, 0.1
SEED, PROMPT, SAMPLE_LENGTH = 1234, "This License", 160


class CharTransformer:
    """The model's parameters, drawn in a fixed order (the C++ program draws them in the same
    one), and its forward pass: logits [batch, time, vocabulary] of the next character."""

    def __init__(self, vocab_size):
        def normal(*shape):
            return (opcore.randn(*shape) * 0.02).requires_grad_()

        def zeros(*shape):
            return opcore.zeros(*shape, requires_grad=True)

        def ones(*shape):
            return opcore.ones(*shape, requires_grad=True)

        self.token, self.position = normal(vocab_size, WIDTH), normal(CONTEXT, WIDTH)
        self.blocks = [{"ln1_weight": ones(WIDTH), "ln1_bias": zeros(WIDTH),
                        "qkv_weight": normal(3 * WIDTH, WIDTH), "qkv_bias": zeros(3 * WIDTH),
                        "proj_weight": normal(WIDTH, WIDTH), "proj_bias": zeros(WIDTH),
                        "ln2_weight": ones(WIDTH), "ln2_bias": zeros(WIDTH),
                        "fc_weight": normal(4 * WIDTH, WIDTH), "fc_bias": zeros(4 * WIDTH),
                        "out_weight": normal(WIDTH, 4 * WIDTH), "out_bias": zeros(WIDTH)} for _ in range(LAYERS)]
        self.ln_weight, self.ln_bias, self.head = ones(WIDTH), zeros(WIDTH), normal(vocab_size, WIDTH)

    def parameters(self):
        return ([self.token, self.position] + [p for block in self.blocks for p in block.values()] +
                [self.ln_weight, self.ln_bias, self.head])

    def to(self, device):
        """The parameters moved to `device` (drawn on the CPU, so every device starts alike)."""
        def move(p):
            return p.detach().to(device).requires_grad_()
        self.token, self.position = move(self.token), move(self.position)
        self.blocks = [{name: move(p) for name, p in block.items()} for block in self.blocks]
        self.ln_weight, self.ln_bias, self.head = move(self.ln_weight), move(self.ln_bias), move(self.head)
        return self

    def __call__(self, idx, training):
        batch, time_steps = idx.shape
        p = DROPOUT if training else 0.0
        x = F.dropout(F.embedding(idx, self.token) + self.position[:time_steps], p, training)
        for b in self.blocks:
            h = F.layer_norm(x, (WIDTH,), b["ln1_weight"], b["ln1_bias"])
            qkv = F.linear(h, b["qkv_weight"], b["qkv_bias"]).view(batch, time_steps, 3, HEADS, WIDTH // HEADS)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each [batch, heads, time, head width]
            a = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
            a = a.transpose(1, 2).reshape(batch, time_steps, WIDTH)
            x = x + F.dropout(F.linear(a, b["proj_weight"], b["proj_bias"]), p, training)
            h = F.layer_norm(x, (WIDTH,), b["ln2_weight"], b["ln2_bias"])
            h = F.linear(F.gelu(F.linear(h, b["fc_weight"], b["fc_bias"])), b["out_weight"], b["out_bias"])
            x = x + F.dropout(h, p, training)
        return F.linear(F.layer_norm(x, (WIDTH,), self.ln_weight, self.ln_bias), self.head)


class AdamW:
    """Adam with decoupled weight decay (Loshchilov and Hutter), in place on each parameter;
    matrices decay, vectors (biases, layer-norm weights) do not."""

    def __init__(self, params):
        self.params, self.step_count = params, 0
        self.m = [opcore.zeros_like(p) for p in params]
        self.v = [opcore.zeros_like(p) for p in params]

    @opcore.no_grad()
    def step(self):
        self.step_count += 1
        c1, c2 = 1 - BETA1 ** self.step_count, 1 - BETA2 ** self.step_count
        for p, m, v in zip(self.params, self.m, self.v):
            g = p.grad
            if p.dim() >= 2:
                p.mul_(1 - LR * WEIGHT_DECAY)
            m.mul_(BETA1).add_(g, alpha=1 - BETA1)
            v.mul_(BETA2).addcmul_(g, g, value=1 - BETA2)
            denominator = v.sqrt().div_(math.sqrt(c2)).add_(EPS)
            p.addcdiv_(m, denominator, value=-LR / c1)
            p.grad = None


def random_batch(data):
    """BATCH windows of CONTEXT characters at random offsets, and the characters after them."""
    starts = (opcore.rand(BATCH) * float(data.numel() - CONTEXT - 1)).to(opcore.int64)
    offsets = starts[:, None] + opcore.arange(CONTEXT)
    return data[offsets], data[offsets + 1]


@opcore.no_grad()
def sample(model, vocab, prompt, length):
    """Continues `prompt` one character at a time, each drawn from the model's distribution
    (inverse transform of one uniform number from opcore's generator)."""
    idx = [vocab.index(c) for c in prompt]
    for _ in range(length):
        logits = model(opcore.tensor([idx[-CONTEXT:]]).to(model.head.device), training=False)[0, -1]
        below = (logits.softmax(-1).cumsum(0).cpu() < opcore.rand(1)).sum().item()
        idx.append(min(below, len(vocab) - 1))
    return "".join(vocab[i] for i in idx)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--device", default="cpu", help="where to train: cpu (default) or cuda")
    args = parser.parse_args()
    text = open(TEXT, encoding="utf-8").read()
    vocab = sorted(set(text))
    code = {c: i for i, c in enumerate(vocab)}
    data = opcore.tensor([code[c] for c in text]).to(args.device)
    opcore.manual_seed(SEED)
    model = CharTransformer(len(vocab)).to(args.device)
    params = model.parameters()
    optimizer = AdamW(params)
    print(f"charlm (Python): {sum(p.numel() for p in params)} parameters, {LAYERS} layers of width {WIDTH}, "
          f"{HEADS} heads, context {CONTEXT}, batch {BATCH}; {data.numel()} characters of {TEXT}, "
          f"{len(vocab)} distinct")
    start = time.perf_counter()
    for step in range(args.steps + 1):
        inputs, targets = random_batch(data)
        loss = F.cross_entropy(model(inputs, training=True).view(-1, len(vocab)), targets.view(-1))
        if step % 50 == 0 or step == args.steps:
            print(f"step {step:4d}  loss {loss.item():.4f}")
        if step == args.steps:
            break
        loss.backward()
        optimizer.step()
    elapsed = time.perf_counter() - start
    print(f"{elapsed / max(args.steps, 1) * 1e3:.1f} ms per training step")
    print("sample: " + repr(sample(model, vocab, PROMPT, SAMPLE_LENGTH)))


if __name__ == "__main__":
    main()
