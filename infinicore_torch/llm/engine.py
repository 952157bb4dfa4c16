"""``llm.LLM``: offline generation over a paged KV cache with continuous batching, in the shape of vLLM's offline API.

    engine = LLM("path/to/checkpoint", device="infini", dtype=torch.bfloat16)
    outs = engine.generate(["Hello"], SamplingParams(max_tokens=32, temperature=0.8, top_p=0.95, seed=0))
    outs[0].outputs[0].token_ids, outs[0].outputs[0].text

Inside: the model's weights (a Hugging Face Llama, Mistral, Qwen2, Qwen3, Qwen2-MoE or Mixtral, patched by
``llm.patch``) run under the engine's own forward over packed tokens: ``rope`` with the model's own rotary tables,
``paged_caching`` into per-layer caches ``[num_blocks, kv_heads, block_size, head_dim]``, ``paged_attention_prefill``
for new prompts, ``paged_attention`` for decode steps, ``add_rms_norm`` on the residual stream, and
``random_sample`` on the device for the next tokens. Scheduling: requests join while blocks and batch slots last
(their prompts in one prefill step), then decode steps run every running request; a request that needs a block when
none is free preempts the most recently admitted one, whose blocks are freed and which later resumes by computing
its prompt and its tokens so far again (nothing it produced is lost).
"""

from __future__ import annotations

import collections
import dataclasses
import math
import os
import time
from typing import Sequence

import torch

from .patch import SUPPORTED, patch


@dataclasses.dataclass
class SamplingParams:
    """max_tokens: tokens to generate at most; temperature 0 is greedy; top_p in (0, 1] (1: no top-p); top_k: -1 or
    0 for none, else at least 1; seed: this request's own random stream (reproducible), else torch's global one;
    stop_token_ids: tokens that end the request besides the model's end-of-sequence (unless ignore_eos)."""

    max_tokens: int = 16
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = -1
    seed: int | None = None
    stop_token_ids: Sequence[int] = ()
    ignore_eos: bool = False

    def __post_init__(self):
        def bad(what):
            raise ValueError(f"SamplingParams: {what}")

        if not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            bad(f"max_tokens must be an integer of at least 1, got {self.max_tokens!r}")
        if not (isinstance(self.temperature, (int, float)) and math.isfinite(self.temperature)) or self.temperature < 0:
            bad(f"temperature must be a finite number >= 0, got {self.temperature!r}")
        if not (isinstance(self.top_p, (int, float)) and 0 < self.top_p <= 1):
            bad(f"top_p must be in (0, 1], got {self.top_p!r}")
        if not isinstance(self.top_k, int) or self.top_k < -1:
            bad(f"top_k must be -1 or 0 (none) or at least 1, got {self.top_k!r}")
        if self.seed is not None and not isinstance(self.seed, int):
            bad(f"seed must be an integer or None, got {self.seed!r}")
        self.stop_token_ids = tuple(int(t) for t in self.stop_token_ids)


@dataclasses.dataclass
class CompletionOutput:
    index: int
    token_ids: list[int]
    text: str | None
    finish_reason: str  # "stop" (an end token) or "length" (max_tokens or the context)


@dataclasses.dataclass
class RequestOutput:
    request_id: int
    prompt: str | None
    prompt_token_ids: list[int]
    outputs: list[CompletionOutput]
    finished: bool = True


class _Seq:
    def __init__(self, rid, prompt, ids, params):
        self.rid, self.prompt, self.prompt_ids, self.params = rid, prompt, list(ids), params
        self.out: list[int] = []
        self.blocks: list[int] = []
        self.cached = 0  # tokens whose keys and values are in the cache
        self.finish: str | None = None
        self.preempted = 0
        self.first_token_at: float | None = None
        self.gen = None
        if params.seed is not None:
            self.gen = torch.Generator().manual_seed(params.seed)

    @property
    def tokens(self):
        return self.prompt_ids + self.out

    @property
    def length(self):
        return len(self.prompt_ids) + len(self.out)

    @property
    def last(self):
        return self.out[-1] if self.out else self.prompt_ids[-1]


class LLM:
    """An engine over one model. ``model``: a model object (kept on its device unless ``device`` is given) or a
    local Hugging Face checkpoint directory (safetensors or bin, config.json; its tokenizer where present).
    ``block_size`` tokens a cache block, ``num_blocks`` blocks a layer (default: every batch slot's full context, at
    most half the device's free memory; a request that outgrows it preempts another),
    ``max_num_seqs`` requests in a batch at most, ``max_model_len`` tokens a request at most (prompt and output).
    ``graphs=True`` replays decode steps from graphs (``torch.infini.graph`` on infini, ``torch.cuda.graph`` on cuda
    devices): one graph per
    captured size (powers of two up to ``max_num_seqs``, and ``max_num_seqs``; a batch is padded to the smallest that
    holds it), captured at its first decode step; a model whose step cannot be captured runs eagerly. Off by
    default."""

    def __init__(
        self,
        model,
        *,
        device=None,
        dtype=None,
        tokenizer=None,
        block_size: int = 16,
        num_blocks: int | None = None,
        max_num_seqs: int = 32,
        max_model_len: int | None = None,
        graphs: bool = False,
    ):
        if isinstance(model, (str, os.PathLike)):
            model, tokenizer = _load(os.fspath(model), dtype, tokenizer)
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"LLM: model must be a model or a checkpoint directory, got {type(model).__name__}")
        arch = type(model).__name__
        if arch not in SUPPORTED or not arch.endswith("ForCausalLM"):
            supported = ", ".join(a for a in sorted(SUPPORTED) if a.endswith("ForCausalLM"))
            raise ValueError(f"LLM: unsupported architecture {arch!r}; supported: {supported}")
        if block_size < 1 or max_num_seqs < 1:
            raise ValueError("LLM: block_size and max_num_seqs must be at least 1")
        if device is not None:
            model = model.to(device)
        if dtype is not None:
            model = model.to(dtype)
        self.model = patch(model.eval())
        self.tokenizer = tokenizer
        cfg = model.config
        self.device = next(model.parameters()).device
        self.dtype = next(model.parameters()).dtype
        limit = getattr(cfg, "max_position_embeddings", 4096)
        window = getattr(cfg, "sliding_window", None) if getattr(cfg, "use_sliding_window", True) else None
        self.max_model_len = min(max_model_len or limit, limit)
        if window is not None and self.max_model_len > window:
            if max_model_len is not None:
                raise ValueError(
                    f"LLM: max_model_len {max_model_len} exceeds the model's sliding window {window}, which the paged "
                    "attention kernels do not apply"
                )
            self.max_model_len = window
        self.block_size, self.max_num_seqs = block_size, max_num_seqs
        per_seq = -(-self.max_model_len // block_size)
        self.num_blocks = num_blocks if num_blocks is not None else self._default_blocks(cfg, per_seq * max_num_seqs)
        if self.num_blocks < 1:
            raise ValueError("LLM: num_blocks must be at least 1")
        if graphs and self.device.type not in ("infini", "cuda"):
            raise ValueError(f"LLM: graphs=True needs the model on an infini or cuda device, not {self.device.type}")
        self.graphs = bool(graphs)
        self._graphs: dict = {}  # captured size -> _DecodeGraph, or None where the step could not be captured
        self.graph_replays = 0
        # the captured batch sizes: powers of two up to max_num_seqs, and max_num_seqs; a batch runs in the smallest
        # that holds it, its extra rows reading and writing a cache block of their own (index num_blocks)
        sizes = [1 << i for i in range(max_num_seqs.bit_length()) if (1 << i) < max_num_seqs]
        self._graph_sizes = sizes + [max_num_seqs]
        self._setup(cfg)
        self._next_id = 0
        self._on_token = None  # (request_id, token) after each sampled token: streaming
        self.stats: dict = {}

    def _default_blocks(self, cfg, wanted):
        """Every batch slot's full context, but at most what half the device's free memory holds."""
        if self.device.type not in ("infini", "cuda"):
            return wanted
        module = torch.infini if self.device.type == "infini" else torch.cuda
        free, _ = module.mem_get_info(self.device)
        heads = cfg.num_attention_heads
        head_dim = getattr(cfg, "head_dim", None) or cfg.hidden_size // heads
        elem = torch.empty((), dtype=self.dtype).element_size()
        per_block = 2 * cfg.num_hidden_layers * cfg.num_key_value_heads * self.block_size * head_dim * elem
        return max(1, min(wanted, free // 2 // per_block))

    # ---- model ----

    def _setup(self, cfg):
        inner = self.model.model
        self.embed, self.layers, self.norm, self.lm_head = (
            inner.embed_tokens,
            inner.layers,
            inner.norm,
            self.model.lm_head,
        )
        attn = self.layers[0].self_attn
        self.heads, self.kv_heads = cfg.num_attention_heads, cfg.num_key_value_heads
        self.head_dim = getattr(attn, "head_dim", cfg.hidden_size // cfg.num_attention_heads)
        self.scale = float(getattr(attn, "scaling", self.head_dim**-0.5))
        # the model's own rotary rows (every rotary variant: HF computes them), float32, positions 0 .. max_model_len
        pos = torch.arange(self.max_model_len, device=self.device)[None]
        probe = torch.zeros(1, device=self.device, dtype=torch.float32)
        cos, sin = inner.rotary_emb(probe, pos)
        half = self.head_dim // 2
        self.cos_table = cos[0, :, :half].float().contiguous()
        self.sin_table = sin[0, :, :half].float().contiguous()
        shape = (self.num_blocks + (1 if self.graphs else 0), self.kv_heads, self.block_size, self.head_dim)
        self.k_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
        self.v_cache = [torch.zeros(shape, dtype=self.dtype, device=self.device) for _ in self.layers]
        eos = getattr(cfg, "eos_token_id", None)
        gen_cfg = getattr(self.model, "generation_config", None)
        if eos is None and gen_cfg is not None:
            eos = gen_cfg.eos_token_id
        self.eos = set(eos if isinstance(eos, (list, tuple)) else ([] if eos is None else [eos]))

    def _attention(self, layer, x, positions, slots, meta, i):
        a = layer.self_attn
        t = x.shape[0]
        q = a.q_proj(x).view(t, self.heads, self.head_dim)
        k = a.k_proj(x).view(t, self.kv_heads, self.head_dim)
        v = a.v_proj(x).view(t, self.kv_heads, self.head_dim)
        if hasattr(a, "q_norm"):  # Qwen3: RMSNorm over each head
            q, k = a.q_norm(q), a.k_norm(k)
        q = torch.ops.infini.rope(q.contiguous(), positions, self.sin_table, self.cos_table, "gpt_neox")
        k = torch.ops.infini.rope(k.contiguous(), positions, self.sin_table, self.cos_table, "gpt_neox")
        torch.ops.infini.paged_caching(k, v.contiguous(), self.k_cache[i], self.v_cache[i], slots)
        tables, seq_lens, cu = meta
        if cu is not None:
            o = torch.ops.infini.paged_attention_prefill(
                q, self.k_cache[i], self.v_cache[i], tables, seq_lens, cu, None, self.scale
            )
        else:
            o = torch.ops.infini.paged_attention(
                q, self.k_cache[i], self.v_cache[i], tables, seq_lens, None, self.scale
            )
        return a.o_proj(o.reshape(t, self.heads * self.head_dim))

    @staticmethod
    def _mlp(layer, x):
        out = layer.mlp(x[None])  # (the MoE blocks take [batch, seq, hidden])
        return (out[0] if isinstance(out, tuple) else out)[0]

    @torch.no_grad()
    def _forward(self, tokens, positions, slots, meta, last_rows):
        h = self.embed(tokens)
        residual = None
        for i, layer in enumerate(self.layers):
            ln1, ln2 = layer.input_layernorm, layer.post_attention_layernorm
            if residual is None:
                residual, x = h, ln1(h)
            else:
                x, residual = torch.ops.infini.add_rms_norm(residual, h, ln1.weight, float(ln1.variance_epsilon))
            a = self._attention(layer, x, positions, slots, meta, i)
            x, residual = torch.ops.infini.add_rms_norm(residual, a, ln2.weight, float(ln2.variance_epsilon))
            h = self._mlp(layer, x)
        x, _ = torch.ops.infini.add_rms_norm(residual, h, self.norm.weight, float(self.norm.variance_epsilon))
        return self.lm_head(x[last_rows]).float()

    # ---- scheduling ----

    def _blocks_for(self, n):
        return -(-n // self.block_size)

    def _grow(self, seq, n):
        need = self._blocks_for(n) - len(seq.blocks)
        if need > len(self._free):
            return False
        for _ in range(need):
            seq.blocks.append(self._free.pop())
        return True

    def _release(self, seq):
        self._free.extend(reversed(seq.blocks))
        seq.blocks, seq.cached = [], 0

    def _tables(self, seqs):
        width = max(len(s.blocks) for s in seqs)
        rows = [s.blocks + [0] * (width - len(s.blocks)) for s in seqs]
        return torch.tensor(rows, dtype=torch.int32).to(self.device)

    def _slot(self, seq, p):
        return seq.blocks[p // self.block_size] * self.block_size + p % self.block_size

    def _prefill(self, seqs):
        toks, pos, slots, cu, lens, last = [], [], [], [0], [], []
        for s in seqs:
            ids = s.tokens
            new = range(s.cached, len(ids))
            toks += ids[s.cached :]
            pos += list(new)
            slots += [self._slot(s, p) for p in new]
            cu.append(cu[-1] + len(new))
            lens.append(len(ids))
            last.append(cu[-1] - 1)
        meta = (self._tables(seqs), self._i32(lens), self._i32(cu))
        logits = self._forward(self._i64(toks), self._i64(pos), self._i64(slots), meta, self._i64(last))
        for s in seqs:
            s.cached = s.length
        self._sample(seqs, logits)

    def _decode(self, seqs):
        toks = [s.last for s in seqs]
        pos = [s.length - 1 for s in seqs]
        slots = [self._slot(s, p) for s, p in zip(seqs, pos)]
        size = next((m for m in self._graph_sizes if m >= len(seqs)), None) if self.graphs else None
        if size is not None and self._graphs.get(size, True) is not None:
            logits = self._graph_decode(seqs, toks, pos, slots, size)
        else:
            meta = (self._tables(seqs), self._i32([p + 1 for p in pos]), None)
            last = self._i64(range(len(seqs)))
            logits = self._forward(self._i64(toks), self._i64(pos), self._i64(slots), meta, last)
        for s in seqs:
            s.cached = s.length
        self._sample(seqs, logits)

    def _graph_decode(self, seqs, toks, pos, slots, n):
        """A decode step through the graph of captured size n (at least the batch): the step's inputs go into the
        graph's static tensors (block tables padded to a request's largest table; rows past the batch a one-token
        sequence in the padding block), then a replay. The first step of a size runs eagerly on those tensors and
        captures the graph after it; the logits are a copy, so the next replay cannot change them."""
        g = self._graphs.get(n)
        width = self._blocks_for(self.max_model_len)
        pad = n - len(seqs)
        tables = [b for s in seqs for b in s.blocks + [0] * (width - len(s.blocks))]
        tables += ([self.num_blocks] + [0] * (width - 1)) * pad
        # the step's inputs as two host tensors (int64 tokens, positions, slots; int32 block tables, lengths)
        longs = torch.tensor(
            [toks + [0] * pad, pos + [0] * pad, slots + [self.num_blocks * self.block_size] * pad], dtype=torch.int64
        )
        ints = torch.tensor(tables + [p + 1 for p in pos] + [1] * pad, dtype=torch.int32)
        if g is None:
            g = _DecodeGraph(longs.to(self.device), ints.to(self.device), n, width, self._i64(range(n)), self.device)
            tok, p, slot, tab, lens = g.inputs
            logits = self._forward(tok, p, slot, (tab, lens, None), g.last).clone()
            try:
                with _graph_context(self.device)(g.graph):
                    g.logits = self._forward(tok, p, slot, (tab, lens, None), g.last)
            except RuntimeError:  # a step the graph cannot hold (host reads, random ops, fallbacks): eager
                self._graphs[n] = None
                return logits[: len(seqs)]
            self._graphs[n] = g
            return logits[: len(seqs)]
        g.stage(longs, ints)
        g.graph.replay()
        self.graph_replays += 1
        return g.logits[: len(seqs)].clone()

    def _i32(self, v):
        return torch.tensor(list(v), dtype=torch.int32).to(self.device)

    def _i64(self, v):
        return torch.tensor(list(v), dtype=torch.int64).to(self.device)

    def _sample(self, seqs, logits):
        vocab = logits.shape[-1]
        groups = collections.defaultdict(list)
        for row, s in enumerate(seqs):
            p = s.params
            greedy = p.temperature == 0 or p.top_k == 1
            topk = 1 if greedy else (vocab if p.top_k <= 0 else min(p.top_k, vocab))
            key = (float(p.top_p), topk, 1.0 if greedy else float(p.temperature))
            groups[key].append(row)
        picked = [0] * len(seqs)
        for (top_p, topk, temp), rows in groups.items():
            if all(seqs[i].gen is None for i in rows):
                r = torch.rand(len(rows))
            else:
                r = torch.stack([torch.rand((), generator=seqs[i].gen) for i in rows])
            part = logits if len(rows) == len(seqs) else logits[rows]
            out = torch.ops.infini.random_sample.tensor(part.contiguous(), r.to(self.device), top_p, topk, temp)
            for i, t in zip(rows, out.tolist()):
                picked[i] = t
        now = time.perf_counter()
        for s, t in zip(seqs, picked):
            s.out.append(int(t))
            if s.first_token_at is None:
                s.first_token_at = now
            if self._on_token is not None:
                self._on_token(s.rid, int(t))
            p = s.params
            if (not p.ignore_eos and t in self.eos) or t in p.stop_token_ids:
                s.finish = "stop"
            elif len(s.out) >= p.max_tokens or s.length >= self.max_model_len:
                s.finish = "length"

    def _run(self, seqs, progress):
        self._free = list(range(self.num_blocks - 1, -1, -1))
        waiting = collections.deque(seqs)
        running: list[_Seq] = []
        while waiting or running:
            admitted = []
            while waiting and len(running) + len(admitted) < self.max_num_seqs:
                if not self._grow(waiting[0], waiting[0].length):
                    break
                admitted.append(waiting.popleft())
            if admitted:
                self._prefill(admitted)
                running += admitted
            elif running:
                for s in list(running):
                    while s in running and not self._grow(s, s.length):
                        victim = running.pop()  # the most recently admitted gives its blocks back
                        self._release(victim)
                        victim.preempted += 1
                        waiting.appendleft(victim)
                if running:
                    self._decode(running)
            else:  # (nothing runs and the first waiting request does not fit: validated against num_blocks)
                raise RuntimeError("LLM: a request does not fit the cache")
            for s in [s for s in running if s.finish]:
                running.remove(s)
                self._release(s)
                if progress is not None:
                    progress.update(1)

    # ---- the API ----

    def generate(self, prompts=None, sampling_params=None, prompt_token_ids=None, use_tqdm=False, on_token=None):
        """One RequestOutput a prompt, in the prompts' order. ``prompts``: strings (needs a tokenizer) or one string;
        ``prompt_token_ids``: lists of token ids; ``sampling_params``: one SamplingParams for all or one a prompt;
        ``on_token(request_index, token_id)``: called as each token is sampled (streaming). ``self.stats`` then holds
        the run's time to first token (mean over the requests), wall time, generated tokens and preemptions."""
        if (prompts is None) == (prompt_token_ids is None):
            raise ValueError("LLM.generate: give prompts or prompt_token_ids (one of them)")
        if prompts is not None:
            texts = [prompts] if isinstance(prompts, str) else list(prompts)
            if self.tokenizer is None:
                raise ValueError(
                    "LLM.generate: text prompts need a tokenizer; this model has none (use prompt_token_ids)"
                )
            ids = [self.tokenizer(t)["input_ids"] for t in texts]
        else:
            ids = [list(map(int, p)) for p in prompt_token_ids]
            texts = [None] * len(ids)
        params = sampling_params if sampling_params is not None else SamplingParams()
        params = list(params) if isinstance(params, (list, tuple)) else [params] * len(ids)
        if len(params) != len(ids):
            raise ValueError(f"LLM.generate: {len(params)} sampling_params for {len(ids)} prompts")
        vocab = self.embed.num_embeddings
        seqs = []
        for n, (text, p_ids, p) in enumerate(zip(texts, ids, params)):
            if not isinstance(p, SamplingParams):
                raise TypeError(f"LLM.generate: sampling_params[{n}] is a {type(p).__name__}, not SamplingParams")
            if len(p_ids) == 0:
                raise ValueError(f"LLM.generate: prompt {n} is empty")
            if any(t < 0 or t >= vocab for t in p_ids):
                raise ValueError(f"LLM.generate: prompt {n} has token ids outside [0, {vocab})")
            if len(p_ids) >= self.max_model_len:
                raise ValueError(
                    f"LLM.generate: prompt {n} has {len(p_ids)} tokens; the context holds {self.max_model_len} "
                    "(prompt and at least one generated token)"
                )
            if self._blocks_for(min(len(p_ids) + p.max_tokens, self.max_model_len)) > self.num_blocks:
                raise ValueError(
                    f"LLM.generate: request {n} needs more cache blocks than the {self.num_blocks} there are"
                )
            seqs.append(_Seq(self._next_id, text, p_ids, p))
            self._next_id += 1
        progress = None
        if use_tqdm:
            from tqdm import tqdm

            progress = tqdm(total=len(seqs), desc="requests")
        base = seqs[0].rid if seqs else 0
        self._on_token = (lambda rid, t: on_token(rid - base, t)) if on_token is not None else None
        start = time.perf_counter()
        try:
            self._run(seqs, progress)
        finally:
            self._on_token = None
            if progress is not None:
                progress.close()
        wall = time.perf_counter() - start
        firsts = [s.first_token_at - start for s in seqs if s.first_token_at is not None]
        self.preemptions = sum(s.preempted for s in seqs)
        self.stats = {
            "ttft_s": sum(firsts) / len(firsts) if firsts else 0.0,
            "wall_s": wall,
            "generated_tokens": sum(len(s.out) for s in seqs),
            "preemptions": self.preemptions,
        }
        out = []
        for s in seqs:
            text = self.tokenizer.decode(s.out, skip_special_tokens=True) if self.tokenizer is not None else None
            out.append(RequestOutput(s.rid, s.prompt, s.prompt_ids, [CompletionOutput(0, s.out, text, s.finish)]))
        return out


class _DecodeGraph:
    """A captured decode step of one batch size: its static inputs (tokens, positions, slots, block tables, sequence
    lengths: views of two device buffers), the rows to keep, the graph and the logits it writes. A step's inputs
    reach the buffers through pinned host copies queued without a host synchronization (the host rewrites them only
    after the previous step's sampled tokens came back, so no queued copy still reads them)."""

    def __init__(self, longs, ints, n, width, last, device):
        self.longs, self.ints, self.last = longs, ints, last
        self.inputs = (longs[0], longs[1], longs[2], ints[: n * width].view(n, width), ints[n * width :])
        self.host_longs = torch.empty(longs.shape, dtype=longs.dtype, pin_memory=True)
        self.host_ints = torch.empty(ints.shape, dtype=ints.dtype, pin_memory=True)
        self.graph = torch.cuda.CUDAGraph() if device.type == "cuda" else torch.infini.InfiniGraph()
        self.logits = None

    def stage(self, longs, ints):
        self.host_longs.copy_(longs)
        self.host_ints.copy_(ints)
        self.longs.copy_(self.host_longs, non_blocking=True)
        self.ints.copy_(self.host_ints, non_blocking=True)


def _graph_context(device):
    return torch.cuda.graph if device.type == "cuda" else torch.infini.graph


def _load(path, dtype, tokenizer):
    import transformers

    if not os.path.isfile(os.path.join(path, "config.json")):
        raise ValueError(f"LLM: {path!r} is not a Hugging Face checkpoint directory (no config.json)")
    model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype, local_files_only=True)
    if tokenizer is None and any(
        os.path.isfile(os.path.join(path, f)) for f in ("tokenizer.json", "tokenizer.model", "tokenizer_config.json")
    ):
        tokenizer = transformers.AutoTokenizer.from_pretrained(path, local_files_only=True)
    return model, tokenizer
