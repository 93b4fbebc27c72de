"""The PyTorch side of the `update-shapes` bench: one PPO update iteration of a captured recipe in eager
PyTorch, on the same model, rows and algorithm as our learner.

    /usr/bin/python3 update_bench.py <capture.json> <iterations> <scoring-pass | one-pass>

Reads the capture (`bench/src/update-shapes/capture.ts`: the trainer's packed rows with their old
log-probs and advantages, the loss and optimizer settings, the update's mini-batches as row indices,
the warm start's directory), builds mage-tiny (Llama: RMSNorm, RoPE, grouped-query attention, SwiGLU,
tied head) from plain PyTorch modules with the warm start's weights (`model/model.safetensors`), and
runs one warm-up and `iterations` timed update iterations, each from the warm-start weights and a fresh
AdamW (restored untimed). An iteration:

- the KL reference (a frozen copy of the warm start) scores every row without gradients;
- per mini-batch (the capture's: the learner's seeded shuffle, the same rows per mini-batch and epochs),
  `one-pass` runs one forward with gradients and the PPO token loss by autograd (clipped ratio with dual
  clip, k3 KL to the reference continued along its tangent beyond the clamp, token-mean), minus the
  entropy bonus (entropyCoef / tokens) sum H, and its backward: the passes of our learner, which
  computes the PPO weights inside its training pass (`TokenLossFn.weightForm`). `scoring-pass` runs our
  learner's passes from before that: a scoring forward without gradients for the current log-probs, the
  token weights w = -d loss / d log p from them, then a forward + backward of
  -sum w log p - (entropyCoef / tokens) sum H (the same gradient);
- gradient-norm clipping and an AdamW step (no decay on the norms, as our optimizer).

Micro-batches: rows sorted by length, at most 8 rows and 8 x 256 positions per run counted on the
learner's length buckets and power-of-two row counts (how our learner formed them before segment rows),
each padded only to its own longest row (eager PyTorch needs no static shapes; no packing of several
sequences into a row). float32, `MAGE_BENCH_TORCH_THREADS` threads (default 2),
`OMP_WAIT_POLICY` PASSIVE unless set (see below). Prints one JSON line.
"""

import json
import math
import os
import resource
import sys
import time

# Waiting OpenMP threads sleep instead of spinning: on a shared 2-core machine at load 10+, libgomp's
# default spin-waits made an iteration 5-8x slower in wall and CPU time (its threads burn the time slices
# the working thread needs). An OMP_WAIT_POLICY of the caller's is kept; MAGE_BENCH_TORCH_OMP_WAIT=default
# leaves libgomp's default.
if os.environ.get("MAGE_BENCH_TORCH_OMP_WAIT") != "default":
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import torch  # noqa: E402  (after the OpenMP setting, which libgomp reads when torch loads it)
import torch.nn.functional as F  # noqa: E402

torch.set_num_threads(int(os.environ.get("MAGE_BENCH_TORCH_THREADS", "2")))


def load_safetensors(path):
    """Every tensor of a float32 safetensors file, by name."""
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        header = json.loads(f.read(n))
        data = bytearray(os.path.getsize(path) - 8 - n)
        f.readinto(data)
    out = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise ValueError(f"{path}: {key} is {entry['dtype']}, expected F32")
        start, end = entry["data_offsets"]
        t = torch.frombuffer(data, dtype=torch.float32, count=(end - start) // 4, offset=start)
        out[key] = t.view(entry["shape"]).clone()
    return out


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rms_norm(x, w, eps):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


class MageTiny:
    """mage-tiny's forward over named parameters (Hugging Face Llama names and layouts)."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.h, self.kv, self.hd = cfg["numHeads"], cfg["numKvHeads"], cfg["headDim"]
        self.eps = cfg["rmsNormEps"]
        inv = 1.0 / (cfg["ropeTheta"] ** (torch.arange(0, self.hd, 2, dtype=torch.float64) / self.hd))
        freqs = torch.arange(cfg["maxPositions"], dtype=torch.float64)[:, None] * inv[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        self.cos, self.sin = emb.cos().float(), emb.sin().float()

    def logits(self, p, ids):
        b, t = ids.shape
        cos, sin = self.cos[:t][None, None], self.sin[:t][None, None]
        mask = torch.full((t, t), float("-inf")).triu(1)
        x = F.embedding(ids, p["model.embed_tokens.weight"])
        for i in range(self.cfg["numLayers"]):
            pre = f"model.layers.{i}"
            a = rms_norm(x, p[f"{pre}.input_layernorm.weight"], self.eps)
            q = F.linear(a, p[f"{pre}.self_attn.q_proj.weight"]).view(b, t, self.h, self.hd).transpose(1, 2)
            k = F.linear(a, p[f"{pre}.self_attn.k_proj.weight"]).view(b, t, self.kv, self.hd).transpose(1, 2)
            v = F.linear(a, p[f"{pre}.self_attn.v_proj.weight"]).view(b, t, self.kv, self.hd).transpose(1, 2)
            q = q * cos + rotate_half(q) * sin
            k = k * cos + rotate_half(k) * sin
            rep = self.h // self.kv
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
            scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd) + mask
            ctx = torch.matmul(torch.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, t, self.h * self.hd)
            x = x + F.linear(ctx, p[f"{pre}.self_attn.o_proj.weight"])
            m = rms_norm(x, p[f"{pre}.post_attention_layernorm.weight"], self.eps)
            gate = F.linear(m, p[f"{pre}.mlp.gate_proj.weight"])
            up = F.linear(m, p[f"{pre}.mlp.up_proj.weight"])
            x = x + F.linear(F.silu(gate) * up, p[f"{pre}.mlp.down_proj.weight"])
        head = p["model.embed_tokens.weight"] if self.cfg["tieWordEmbeddings"] else p["lm_head.weight"]
        return F.linear(rms_norm(x, p["model.norm.weight"], self.eps), head)


def next_pow2(n):
    p = 1
    while p < n:
        p *= 2
    return p


def bucket_length(n, lo, hi):
    """The learner's static-shape bucket of n positions (16, 32, 48, 64, 96, 128, 192 ...)."""
    p = max(next_pow2(n), lo)
    q = 3 * p // 4
    return min(q if n <= q and q % lo == 0 else p, hi)


def input_length(row):
    last = row["spans"][-1]
    return max(1, last["start"] + last["length"] - 1)


def micro_batches(indices, rows, limits):
    """The learner's micro-batches of a batch: shortest first, within its row and padded-token limits."""
    order = sorted(indices, key=lambda i: (input_length(rows[i]), indices.index(i)))
    out, open_ = [], []
    for i in order:
        t = bucket_length(input_length(rows[i]), 16, limits["maxPositions"])
        n = len(open_) + 1
        if open_ and (n > limits["rows"] or next_pow2(n) * t > max(limits["tokens"], t)):
            out.append(open_)
            open_ = []
        open_.append(i)
    if open_:
        out.append(open_)
    return out


class Batch:
    """The tensors of a set of rows: micro-batches (ids, and where each scored token sits) and the flat
    per-token inputs of the loss in the learner's order (row by row, span by span)."""

    def __init__(self, indices, rows, limits):
        self.micro = []
        self.positions = 0
        offsets, k = {}, 0
        for i in indices:
            offsets[i] = k
            k += sum(s["length"] for s in rows[i]["spans"])
        self.n = k
        for mb in micro_batches(indices, rows, limits):
            length = max(input_length(rows[i]) for i in mb)
            ids = torch.zeros((len(mb), length), dtype=torch.long)
            b_idx, t_idx, target, dest = [], [], [], []
            for b, i in enumerate(mb):
                tokens = rows[i]["tokens"][:length]
                ids[b, : len(tokens)] = torch.tensor(tokens, dtype=torch.long)
                o = offsets[i]
                for s in rows[i]["spans"]:
                    for j in range(s["length"]):
                        b_idx.append(b)
                        t_idx.append(s["start"] + j - 1)
                        target.append(rows[i]["tokens"][s["start"] + j])
                        dest.append(o)
                        o += 1
            self.positions += len(mb) * length
            self.micro.append(
                (ids, torch.tensor(b_idx), torch.tensor(t_idx), torch.tensor(target), torch.tensor(dest))
            )
        old, adv, row_of = [], [], []
        r = 0
        for i in indices:
            for s in rows[i]["spans"]:
                old.extend(s["oldLogprobs"])
                adv.extend([s["advantage"]] * s["length"])
                row_of.extend([r] * s["length"])
                r += 1
        # float32 as the learner hands them to the loss, then computed in double as its JS does.
        self.old = torch.tensor(old, dtype=torch.float32).double()
        self.adv = torch.tensor(adv, dtype=torch.float32).double()
        self.row_of = torch.tensor(row_of)
        self.ref = None

    def run(self, model, p, with_entropy):
        """Log-probs (and entropies) of the scored tokens, in flat order."""
        lps, ents, dests = [], [], []
        for ids, b_idx, t_idx, target, dest in self.micro:
            lsm = torch.log_softmax(model.logits(p, ids), dim=-1)[b_idx, t_idx]
            lps.append(lsm.gather(-1, target[:, None]).squeeze(-1))
            if with_entropy:
                ents.append(-(lsm.exp() * lsm).sum(-1))
            dests.append(dest)
        dest = torch.cat(dests)
        logp = torch.zeros(self.n).index_add(0, dest, torch.cat(lps))
        ent = torch.zeros(self.n).index_add(0, dest, torch.cat(ents)) if with_entropy else None
        return logp, ent


def kl_edges(clamp):
    """The points d_lo < 0 < d_hi where k3(d) = exp(d) - d - 1 equals the clamp (gigpo's `klEdges`)."""

    def solve(d):
        for _ in range(60):
            step = (math.exp(d) - d - 1 - clamp) / (math.exp(d) - 1)
            d -= step
            if abs(step) < 1e-14:
                break
        return d

    return solve(-clamp - 1), solve(math.log(clamp + 2))


def ppo_loss(lp, batch, loss_cfg):
    """The PPO token loss (gigpo's `ppoTokenLoss`) as a differentiable function of the log-probs, summed
    with the aggregation's scales."""
    lo, hi = 1 - loss_cfg["clip"], 1 + loss_cfg["clipHigh"]
    adv = batch.adv
    ratio = torch.exp(lp - batch.old)
    unclipped = -adv * ratio
    clipped = -adv * ratio.clamp(lo, hi)
    pg = torch.maximum(unclipped, clipped)
    if loss_cfg["dualClip"] is not None:
        pg = torch.where(adv < 0, torch.minimum(pg, -loss_cfg["dualClip"] * adv), pg)
    token = pg
    if loss_cfg["klCoef"] > 0:
        e_lo, e_hi = kl_edges(loss_cfg["klClamp"])
        d = batch.ref - lp
        c = d.clamp(e_lo, e_hi)
        ec = torch.exp(c)
        k = ec - c - 1 + (ec - 1) * (d - c)
        if loss_cfg["klUpperEdge"] == "release-advantaged":
            flat = math.exp(e_hi) - e_hi - 1
            k = torch.where((adv != 0) & (d > e_hi), torch.full_like(k, flat), k)
        token = token + loss_cfg["klCoef"] * k
    if loss_cfg["aggregation"] == "token-mean":
        scales = torch.full_like(token, 1.0 / batch.n)
    else:
        counts = torch.bincount(batch.row_of).double()
        scales = 1.0 / ((counts > 0).sum() * counts[batch.row_of])
    return (scales * token).sum()


def update_iteration(model, p, ref_p, batches, all_rows, cap, opt_of, mode):
    """One iteration; returns its phase times (ms), steps, tokens, loss and per-mini-batch losses."""
    loss_cfg, req = cap["loss"], cap["request"]
    t = {"reference": 0.0, "score": 0.0, "train": 0.0, "optimizer": 0.0}
    t0 = time.perf_counter()
    with torch.no_grad():
        ref, _ = all_rows.run(model, ref_p, False)
    t["reference"] = (time.perf_counter() - t0) * 1000
    params = list(p.values())
    opt = opt_of()
    losses, steps, tokens = [], 0, 0
    for batch in batches:
        batch.ref = ref[batch.ref_index].double()
        ent_w = req["entropyCoef"] / batch.n
        if mode == "scoring-pass":
            s0 = time.perf_counter()
            with torch.no_grad():
                current, _ = batch.run(model, p, False)
            # The token weights: -d loss / d log p at the current log-probs (the loss is per token).
            lp = current.double().requires_grad_(True)
            loss = ppo_loss(lp, batch, loss_cfg)
            (grad,) = torch.autograd.grad(loss, lp)
            weights = (-grad).float()
            s1 = time.perf_counter()
            logp, ent = batch.run(model, p, True)
            (-(weights * logp).sum() - ent_w * ent.sum()).backward()
            t["score"] += (s1 - s0) * 1000
            t["train"] += (time.perf_counter() - s1) * 1000
        else:
            s1 = time.perf_counter()
            logp, ent = batch.run(model, p, True)
            loss = ppo_loss(logp.double(), batch, loss_cfg)
            (loss - ent_w * ent.sum()).backward()
            t["train"] += (time.perf_counter() - s1) * 1000
        o0 = time.perf_counter()
        torch.nn.utils.clip_grad_norm_(params, cap["learner"]["optimizer"]["maxGradNorm"])
        opt.step()
        opt.zero_grad(set_to_none=True)
        t["optimizer"] += (time.perf_counter() - o0) * 1000
        losses.append(float(loss))
        steps += 1
        tokens += batch.n
    return t, steps, tokens, losses, ref


def main():
    path, count, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if mode not in ("scoring-pass", "one-pass"):
        raise ValueError(f"mode must be scoring-pass or one-pass, got {mode}")
    with open(path) as f:
        cap = json.load(f)
    cfg = cap["model"]
    if cfg["architecture"] != "llama":
        raise ValueError(f"update_bench.py builds llama models; the capture's is {cfg['architecture']}")
    t_load = time.perf_counter()
    weights = load_safetensors(os.path.join(cap["warmStart"], "model", "model.safetensors"))
    model = MageTiny(cfg)
    p = {k: torch.nn.Parameter(v.clone()) for k, v in weights.items()}
    ref_p = {k: v.clone() for k, v in weights.items()}
    load_ms = (time.perf_counter() - t_load) * 1000
    rows = cap["rows"]
    limits = {
        "rows": cap["learner"]["microBatchRows"],
        "tokens": cap["learner"]["microBatchTokens"],
        "maxPositions": cfg["maxPositions"],
    }
    all_rows = Batch(list(range(len(rows))), rows, limits)
    # Where each row's tokens sit in the reference's flat log-probs.
    starts, k = [], 0
    for r in rows:
        starts.append(k)
        k += sum(s["length"] for s in r["spans"])
    batches = []
    for epoch in cap["miniBatches"]:
        for mb in epoch:
            b = Batch(mb, rows, limits)
            b.ref_index = torch.tensor(
                [starts[i] + j for i in mb for j in range(sum(s["length"] for s in rows[i]["spans"]))]
            )
            batches.append(b)
    o = cap["learner"]["optimizer"]

    def opt_of():
        decay = [v for n, v in p.items() if "norm" not in n]
        no_decay = [v for n, v in p.items() if "norm" in n]
        groups = [{"params": decay, "weight_decay": o["weightDecay"]}, {"params": no_decay, "weight_decay": 0.0}]
        return torch.optim.AdamW(groups, lr=o["lr"], betas=(0.9, 0.999), eps=1e-8)

    iterations = []
    ref_max_abs = 0.0
    for i in range(count + 1):
        with torch.no_grad():
            for n, v in p.items():
                v.copy_(weights[n])
        c0, w0 = time.process_time(), time.perf_counter()
        t, steps, tokens, losses, ref = update_iteration(model, p, ref_p, batches, all_rows, cap, opt_of, mode)
        ms, cpu = (time.perf_counter() - w0) * 1000, (time.process_time() - c0) * 1000
        if i == 0:
            trainer_ref = torch.tensor(
                [x for r in rows for s in r["spans"] for x in s["refLogprobs"]], dtype=torch.float32
            )
            ref_max_abs = float((ref - trainer_ref).abs().max())
        iterations.append(
            {
                "warmUp": i == 0,
                "ms": ms,
                "cpuMs": cpu,
                "phasesMs": t,
                "steps": steps,
                "tokens": tokens,
                "loss": sum(losses) / max(1, len(losses)),
                "miniBatchLosses": losses,
            }
        )
    passes = {
        "reference": {"runs": len(all_rows.micro), "positions": all_rows.positions},
        ("score" if mode == "scoring-pass" else "none"): {
            "runs": sum(len(b.micro) for b in batches),
            "positions": sum(b.positions for b in batches),
        },
        "train": {"runs": sum(len(b.micro) for b in batches), "positions": sum(b.positions for b in batches)},
    }
    passes.pop("none", None)
    print(
        json.dumps(
            {
                "side": f"pytorch {mode}",
                "torch": torch.__version__,
                "threads": torch.get_num_threads(),
                "ompWaitPolicy": os.environ.get("OMP_WAIT_POLICY", "libgomp default"),
                "loadMs": load_ms,
                "refMaxAbsVsTrainer": ref_max_abs,
                "passes": passes,
                "iterations": iterations,
                "maxRssBytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            }
        )
    )


if __name__ == "__main__":
    main()
