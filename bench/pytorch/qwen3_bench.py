"""PyTorch eager side of the `qwen3` bench (float32, 2 threads), one process per measurement.

    python3 qwen3_bench.py <dir> update <updates>   # LoRA update tokens/s (+ log-probs for the check)
    python3 qwen3_bench.py <dir> decode <rounds>    # greedy decode tokens/s at batch 1 and 16

Builds Qwen3 from plain PyTorch modules (RMSNorm, q/k norm, RoPE, grouped-query attention, SwiGLU,
tied head), loads the weights of the directory the bench wrote (safetensors parsed here: an 8-byte
header length, a JSON header, raw little-endian tensors), adds LoRA adapters of the bench's rank on
the bench's projections and trains them with AdamW, reading rows and prompts from `inputs.json` so
both sides see the same tokens. Prints one JSON line.
"""

import json
import math
import os
import resource
import sys
import time

import torch
import torch.nn.functional as F

torch.set_num_threads(int(os.environ.get("MAGE_BENCH_TORCH_THREADS", "2")))
DTYPES = {"F32": torch.float32, "F16": torch.float16, "BF16": torch.bfloat16}


def load_safetensors(directory):
    """Every tensor of every `*.safetensors` file in `directory`, as float32, by name."""
    out = {}
    for name in sorted(f for f in os.listdir(directory) if f.endswith(".safetensors")):
        path = os.path.join(directory, name)
        with open(path, "rb") as f:
            n = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(n))
            data = bytearray(os.path.getsize(path) - 8 - n)
            f.readinto(data)
        for key, entry in header.items():
            if key == "__metadata__":
                continue
            start, end = entry["data_offsets"]
            dtype = DTYPES[entry["dtype"]]
            count = (end - start) // torch.tensor([], dtype=dtype).element_size()
            t = torch.frombuffer(data, dtype=dtype, count=count, offset=start).view(entry["shape"])
            out[key] = t if dtype == torch.float32 else t.float()
    return out


class RMSNorm(torch.nn.Module):
    def __init__(self, weight, eps):
        super().__init__()
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class Linear(torch.nn.Module):
    """A frozen linear layer, with a LoRA adapter y += (alpha / rank) · B(A x) when `rank` > 0."""

    def __init__(self, weight, rank=0, alpha=0):
        super().__init__()
        self.weight = torch.nn.Parameter(weight, requires_grad=False)
        self.rank = rank
        if rank > 0:
            out_f, in_f = weight.shape
            self.lora_a = torch.nn.Parameter(torch.empty(rank, in_f))
            torch.nn.init.kaiming_uniform_(self.lora_a, a=math.sqrt(5))
            self.lora_b = torch.nn.Parameter(torch.zeros(out_f, rank))
            self.scale = alpha / rank

    def forward(self, x):
        y = F.linear(x, self.weight)
        if self.rank > 0:
            y = y + F.linear(F.linear(x, self.lora_a), self.lora_b) * self.scale
        return y


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class Attention(torch.nn.Module):
    def __init__(self, w, p, cfg, lora):
        super().__init__()
        self.h, self.kv, self.hd = cfg["num_attention_heads"], cfg["num_key_value_heads"], cfg["head_dim"]
        eps = cfg["rms_norm_eps"]

        def lin(name):
            short = name.split(".")[-1]
            rank = lora["rank"] if short in lora["targets"] else 0
            return Linear(w[f"{p}.{name}.weight"], rank, lora["alpha"])

        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (
            lin("q_proj"),
            lin("k_proj"),
            lin("v_proj"),
            lin("o_proj"),
        )
        self.q_norm = RMSNorm(w[f"{p}.q_norm.weight"], eps)
        self.k_norm = RMSNorm(w[f"{p}.k_norm.weight"], eps)

    def forward(self, x, cos, sin, mask, past):
        b, t, _ = x.shape
        q = self.q_norm(self.q_proj(x).view(b, t, self.h, self.hd)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(b, t, self.kv, self.hd)).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.kv, self.hd).transpose(1, 2)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        if past is not None:
            k = torch.cat((past[0], k), dim=2)
            v = torch.cat((past[1], v), dim=2)
        present = (k, v)
        rep = self.h // self.kv
        k = k.repeat_interleave(rep, dim=1)
        v = v.repeat_interleave(rep, dim=1)
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(self.hd)
        if mask is not None:
            scores = scores + mask
        out = torch.matmul(torch.softmax(scores, dim=-1), v)
        return self.o_proj(out.transpose(1, 2).reshape(b, t, self.h * self.hd)), present


class Block(torch.nn.Module):
    def __init__(self, w, i, cfg, lora):
        super().__init__()
        p = f"model.layers.{i}"
        eps = cfg["rms_norm_eps"]
        self.input_layernorm = RMSNorm(w[f"{p}.input_layernorm.weight"], eps)
        self.post_attention_layernorm = RMSNorm(w[f"{p}.post_attention_layernorm.weight"], eps)
        self.self_attn = Attention(w, f"{p}.self_attn", cfg, lora)

        def lin(name):
            rank = lora["rank"] if name in lora["targets"] else 0
            return Linear(w[f"{p}.mlp.{name}.weight"], rank, lora["alpha"])

        self.gate_proj, self.up_proj, self.down_proj = lin("gate_proj"), lin("up_proj"), lin("down_proj")

    def forward(self, x, cos, sin, mask, past):
        a, present = self.self_attn(self.input_layernorm(x), cos, sin, mask, past)
        x = x + a
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h)), present


class Qwen3(torch.nn.Module):
    def __init__(self, w, cfg, lora):
        super().__init__()
        self.cfg = cfg
        self.embed = torch.nn.Parameter(w["model.embed_tokens.weight"], requires_grad=False)
        head = w.get("lm_head.weight")
        self.head = self.embed if cfg.get("tie_word_embeddings", True) or head is None else head
        self.layers = torch.nn.ModuleList(Block(w, i, cfg, lora) for i in range(cfg["num_hidden_layers"]))
        self.norm = RMSNorm(w["model.norm.weight"], cfg["rms_norm_eps"])
        hd = cfg["head_dim"]
        self.inv_freq = 1.0 / (cfg["rope_theta"] ** (torch.arange(0, hd, 2, dtype=torch.float64) / hd))

    def rope(self, positions):
        freqs = positions.to(torch.float64)[:, None] * self.inv_freq[None, :]
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().float()[None, None], emb.sin().float()[None, None]

    def hidden(self, ids, start=0, past=None):
        """Final-norm hidden states of `ids` at positions start…; `past` holds each layer's (k, v)."""
        t = ids.shape[1]
        cos, sin = self.rope(torch.arange(start, start + t))
        mask = None
        if t > 1:
            mask = torch.full((t, start + t), float("-inf")).triu(start + 1)
        x = F.embedding(ids, self.embed)
        presents = []
        for i, layer in enumerate(self.layers):
            x, present = layer(x, cos, sin, mask, None if past is None else past[i])
            presents.append(present)
        return self.norm(x), presents


def rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def response_logprobs(model, ids, prompt_len, with_entropy):
    """Log-probs of the response tokens (the head only at the positions that predict them)."""
    h, _ = model.hidden(ids)
    logits = F.linear(h[:, prompt_len - 1 : -1], model.head)
    logp = torch.log_softmax(logits, dim=-1)
    taken = logp.gather(-1, ids[:, prompt_len:, None]).squeeze(-1)
    if not with_entropy:
        return taken, None
    return taken, -(logp.exp() * logp).sum(-1)


def update(model, inputs, count):
    rows = inputs["rows"]
    prompt_len = len(rows[0]["prompt"])
    ids = torch.tensor([r["prompt"] + r["response"] for r in rows], dtype=torch.long)
    t0 = time.perf_counter()
    with torch.no_grad():
        first, _ = response_logprobs(model, ids, prompt_len, False)
    score_ms = (time.perf_counter() - t0) * 1000
    params = [p for p in model.parameters() if p.requires_grad]
    o = inputs["optimizer"]
    opt = torch.optim.AdamW(params, lr=o["lr"], weight_decay=o["weightDecay"])
    coef = inputs["entropyCoef"]
    times, cpu, losses = [], [], []
    micro = int(os.environ.get("MAGE_BENCH_TORCH_MICRO_ROWS", "8"))
    for i in range(count + 1):
        t, c = time.perf_counter(), time.process_time()
        opt.zero_grad(set_to_none=True)
        policy_total = 0.0
        # Micro-batches of `micro` rows with gradients added up, as the learner runs its update (8 rows
        # per graph run by default); all 16 rows in one pass need more than 22 GB here.
        for chunk in ids.split(micro):
            logp, entropy = response_logprobs(model, chunk, prompt_len, True)
            # −Σ_rows mean_t (log p + coef · entropy): the bench's on-policy loss with its entropy bonus.
            policy = -logp.mean(-1).sum()
            (policy - coef * entropy.mean(-1).sum()).backward()
            policy_total += float(policy)
        torch.nn.utils.clip_grad_norm_(params, o["maxGradNorm"])
        opt.step()
        # Reported like the learner's: the policy term (no entropy bonus), averaged over rows.
        losses.append(policy_total / len(rows))
        if i > 0:
            times.append((time.perf_counter() - t) * 1000)
            cpu.append((time.process_time() - c) * 1000)
    return {
        "tokens": ids.shape[0] * (ids.shape[1] - prompt_len),
        "positions": ids.numel(),
        "scoreMs": score_ms,
        "times": times,
        "cpuMs": cpu,
        "losses": losses,
        "logprobs": first.tolist(),
        "trainableParams": sum(p.numel() for p in params),
    }


@torch.inference_mode()
def generate(model, prompts, new_tokens):
    """Greedy decoding with a growing KV cache (the head only at each step's last position)."""
    ids = torch.tensor(prompts, dtype=torch.long)
    h, past = model.hidden(ids)
    tok = F.linear(h[:, -1], model.head).argmax(-1)
    out = [tok]
    pos = ids.shape[1]
    for _ in range(new_tokens - 1):
        h, past = model.hidden(tok[:, None], pos, past)
        tok = F.linear(h[:, -1], model.head).argmax(-1)
        out.append(tok)
        pos += 1
    return torch.stack(out, dim=1)


def decode(model, inputs, rounds):
    d = inputs["decode"]
    result = {}
    for batch in (1, 16):
        prompts = d["prompts"][:batch]
        times, tokens = [], []
        for i in range(rounds + 1):
            t = time.perf_counter()
            tokens = generate(model, prompts, d["newTokens"])[0].tolist()
            if i > 0:
                times.append((time.perf_counter() - t) * 1000)
        result[f"batch{batch}"] = {"times": times, "tokens": tokens, "newTokens": batch * d["newTokens"]}
    return result


def main():
    directory, mode = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    with open(os.path.join(directory, "config.json")) as f:
        cfg = json.load(f)
    with open(os.path.join(directory, "inputs.json")) as f:
        inputs = json.load(f)
    t0 = time.perf_counter()
    weights = load_safetensors(directory)
    lora = inputs["lora"] if mode == "update" else {"rank": 0, "alpha": 0, "targets": []}
    torch.manual_seed(1)
    model = Qwen3(weights, cfg, lora)
    del weights
    load_ms = (time.perf_counter() - t0) * 1000
    result = update(model, inputs, count) if mode == "update" else decode(model, inputs, count)
    info = {"torch": torch.__version__, "threads": torch.get_num_threads()}
    print(json.dumps({"mode": mode, "loadMs": load_ms, **info, **result, "maxRssBytes": rss_bytes()}))


if __name__ == "__main__":
    main()
