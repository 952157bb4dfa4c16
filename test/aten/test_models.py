"""End to end: a small MLP trained on infini, and a transformer block's forward, match the CPU."""

import copy

import pytest
import torch
from torch import nn

import infinicore_torch  # noqa: F401

pytestmark = pytest.mark.allow_fallback("end to end: every op the model uses, native or not")


def train(model, data, target, device, steps=20):
    model = model.to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x, y = data.to(device), target.to(device)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
    return model, loss.item()


def test_mlp_trained_20_steps_on_infini_matches_cpu():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, 4))
    data, target = torch.randn(64, 16), torch.randn(64, 4)
    cpu_model, cpu_loss = train(copy.deepcopy(model), data, target, "cpu")
    inf_model, inf_loss = train(copy.deepcopy(model), data, target, "infini")
    for (name, p_cpu), (_, p_inf) in zip(cpu_model.named_parameters(), inf_model.named_parameters()):
        assert p_inf.device.type == "infini", name
        torch.testing.assert_close(p_inf.cpu(), p_cpu, rtol=1e-5, atol=1e-6, msg=name)
    assert abs(inf_loss - cpu_loss) < 1e-5


class Block(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool, device=x.device), 1)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


def test_transformer_block_forward_matches_cpu():
    torch.manual_seed(0)
    block = Block().eval()
    x = torch.randn(2, 10, 64)
    with torch.no_grad():
        ref = block(x)
        out = copy.deepcopy(block).to("infini")(x.to("infini"))
    assert out.device.type == "infini"
    torch.testing.assert_close(out.cpu(), ref, rtol=1e-5, atol=1e-5)
