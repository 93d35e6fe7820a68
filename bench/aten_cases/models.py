"""The showcase models of issue #34, one training step each (forward, cross-entropy, backward,
the optimizer's in-place update; steps per second): examples/charlm.py's character-level
transformer and examples/digits.py's convolutional network as the examples write them with
opcore, and the same models written with torch 1.13 (which has no
scaled_dot_product_attention: its math, as opcore's composite computes it), with the same
weights, the same batch and the same hand-written optimizer."""
import importlib.util
import math
from pathlib import Path

from aten_cases import Case

_EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _example(name):
    spec = importlib.util.spec_from_file_location(name, _EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _torch_twin(torch, charlm, params):
    """examples/charlm.py's forward pass and AdamW in torch, on copies of `params` (numpy)."""
    F = torch.nn.functional
    c = charlm
    tensors = [torch.tensor(p, requires_grad=True) for p in params]
    token, position, *rest = tensors
    blocks = [rest[12 * i:12 * i + 12] for i in range(c.LAYERS)]
    ln_weight, ln_bias, head = rest[12 * c.LAYERS:]

    def attention(q, k, v, p, training):
        scores = (q * (1 / math.sqrt(q.size(-1)))) @ k.transpose(-2, -1)
        visible = torch.ones(q.size(-2), k.size(-2), dtype=torch.bool).tril()
        weights = F.dropout(scores.masked_fill(~visible, -math.inf).softmax(-1), p, training)
        return weights @ v

    def model(idx, training):
        batch, time_steps = idx.shape
        p = c.DROPOUT if training else 0.0
        x = F.dropout(F.embedding(idx, token) + position[:time_steps], p, training)
        for (ln1_w, ln1_b, qkv_w, qkv_b, proj_w, proj_b, ln2_w, ln2_b, fc_w, fc_b, out_w, out_b) in blocks:
            h = F.layer_norm(x, (c.WIDTH,), ln1_w, ln1_b)
            qkv = F.linear(h, qkv_w, qkv_b).view(batch, time_steps, 3, c.HEADS, c.WIDTH // c.HEADS)
            q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)
            a = attention(q, k, v, p, training).transpose(1, 2).reshape(batch, time_steps, c.WIDTH)
            x = x + F.dropout(F.linear(a, proj_w, proj_b), p, training)
            h = F.layer_norm(x, (c.WIDTH,), ln2_w, ln2_b)
            x = x + F.dropout(F.linear(F.gelu(F.linear(h, fc_w, fc_b)), out_w, out_b), p, training)
        return F.linear(F.layer_norm(x, (c.WIDTH,), ln_weight, ln_bias), head)

    m = [torch.zeros_like(t) for t in tensors]
    v = [torch.zeros_like(t) for t in tensors]
    count = [0]

    @torch.no_grad()
    def adamw():
        count[0] += 1
        c1, c2 = 1 - c.BETA1 ** count[0], 1 - c.BETA2 ** count[0]
        for p, mp, vp in zip(tensors, m, v):
            g = p.grad
            if p.dim() >= 2:
                p.mul_(1 - c.LR * c.WEIGHT_DECAY)
            mp.mul_(c.BETA1).add_(g, alpha=1 - c.BETA1)
            vp.mul_(c.BETA2).addcmul_(g, g, value=1 - c.BETA2)
            p.addcdiv_(mp, vp.sqrt().div_(math.sqrt(c2)).add_(c.EPS), value=-c.LR / c1)
            p.grad = None

    return model, adamw


def _digits_step(lib, np):
    """One SGD step of examples/digits.py's network on a batch of 50 random 8x8 images."""
    import opcore
    digits = _example("digits")
    opcore.manual_seed(digits.SEED)
    model = digits.ConvNet()
    params = [p if lib is opcore else lib.tensor(p.detach().numpy(), requires_grad=True) for p in model.parameters()]
    velocity = [lib.zeros_like(p) for p in params]
    rng = np.random.default_rng(1)
    x = lib.from_numpy(rng.random((digits.BATCH, 1, 8, 8), dtype=np.float32))
    y = lib.from_numpy(rng.integers(0, 10, digits.BATCH))
    F = lib.nn.functional

    def step():
        w1, b1, w2, b2, fw, fb = params
        h = F.max_pool2d(F.relu(F.conv2d(x, w1, b1, padding=1)), 2)
        h = F.max_pool2d(F.relu(F.conv2d(h, w2, b2, padding=1)), 2)
        F.cross_entropy(F.linear(h.flatten(1), fw, fb), y).backward()
        with lib.no_grad():
            for p, v in zip(params, velocity):
                v.mul_(digits.MOMENTUM).add_(p.grad)
                p.sub_(v, alpha=digits.LR)
                p.grad = None

    return step


def setup(lib, np):
    if lib is None:
        return {}
    charlm = _example("charlm")
    text = open(charlm.TEXT, encoding="utf-8").read()
    vocab = sorted(set(text))
    rng = np.random.default_rng(0)
    inputs = rng.integers(0, len(vocab), (charlm.BATCH, charlm.CONTEXT))
    targets = rng.integers(0, len(vocab), (charlm.BATCH * charlm.CONTEXT,))
    import opcore
    opcore.manual_seed(charlm.SEED)
    model = charlm.CharTransformer(len(vocab))
    if lib is opcore:
        optimizer = charlm.AdamW(model.parameters())
        forward, update = model, optimizer.step
    else:
        forward, update = _torch_twin(lib, charlm, [p.detach().numpy() for p in model.parameters()])
    x, y = lib.from_numpy(inputs), lib.from_numpy(targets)

    def step():
        logits = forward(x, True)
        lib.nn.functional.cross_entropy(logits.view(-1, len(vocab)), y).backward()
        update()

    return {"step": step, "digits_step": _digits_step(lib, np)}


# (work 1e9: the rate is in steps per second)
CASES = [
    Case("charlm training step (2 layers, width 64, batch 16 x 64)", 1e9, "step()", unit="steps/s"),
    Case("digits training step (2 convolutions, batch 50 of 8x8)", 1e9, "digits_step()", unit="steps/s"),
]
