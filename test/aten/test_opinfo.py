"""Conformance against torch's OpInfo database (infinicore_torch.testing.opinfo): each op's samples on infini
against the CPU. CI runs the ops below; `INFINI_OPINFO=all` (or `python -m infinicore_torch.testing.opinfo
--ops all`) runs every entry. An op in NATIVE must pass without the CPU fallback; any other listed op must at least
agree with the CPU. Names are OpInfo formatted names (nn_functional_relu, norm_nuc)."""

import os

import pytest
import torch

pytest.importorskip("expecttest", reason="torch.testing._internal needs expecttest (pip install expecttest)")
from infinicore_torch.testing import opinfo  # noqa: E402

pytestmark = pytest.mark.allow_fallback("the runner counts fallbacks itself")

# Ops (OpInfo formatted names) whose every sample of the CI dtypes runs on the device's own kernels: the ops
# docs/conformance.md marks ok or skipped in all four of those columns.
NATIVE = set(
    """
    H T __getitem__ __radd__ __rand__ __rdiv__ __rmod__ __rmul__ __ror__ __rpow__ __rsub__ __rxor__ _chunk_cat
    _native_batch_norm_legit _softmax_backward_data _unsafe_masked_index _unsafe_masked_index_put_accumulate abs
    acos acosh add addcdiv addcmul addr alias_copy all allclose amax amin aminmax any arange argmax argmin argsort
    argwhere as_strided as_strided_copy as_strided_scatter asin asinh atan atan2 atanh atleast_1d atleast_2d
    atleast_3d bfloat16 bincount bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift
    bitwise_xor block_diag bmm_triton_optimized bool broadcast_shapes broadcast_tensors broadcast_to byte
    cartesian_prod cat cdouble ceil cfloat chalf char chunk clamp clamp_max clamp_min clone column_stack
    combinations conj conj_physical constant_pad_nd contiguous copysign corrcoef cos cosh count_nonzero cov cummax
    cummin cumprod cumsum cumulative_trapezoid deg2rad diag diag_embed diagflat diagonal diagonal_copy
    diagonal_scatter diff digamma dist div_floor_rounding div_no_rounding_mode div_trunc_rounding double dsplit
    dstack eq erf erfc erfinv exp exp2 expand expand_as expand_copy expm1 eye fft_fftshift fft_ifftshift fill
    flatten flip fliplr flipud float float_power floor floor_divide fmax fmin fmod frac full full_like gather ge
    gradient gt half histc hsplit hstack hypot index_add index_copy index_fill index_put index_select int isclose
    isfinite isin isinf isnan isneginf isposinf isreal kron kthvalue ldexp le lerp lgamma linalg_diagonal
    linalg_vander linalg_vecdot linalg_vector_norm linspace linspace_tensor_overload log log10 log1p log2
    log_softmax log_softmax_with_dtype logcumsumexp logical_and logical_not logical_or logical_xor logspace
    logspace_tensor_overload logsumexp long lt mH mT masked_amax masked_amin masked_argmax masked_argmin
    masked_cumprod masked_cumsum masked_fill masked_log_softmax masked_logsumexp masked_mean masked_norm
    masked_normalize masked_prod masked_scatter masked_select masked_softmax masked_softmin masked_std masked_sum
    masked_var max_binary max_pool2d_with_indices_backward max_reduction_no_dim max_reduction_with_dim maximum mean
    median meshgrid_list_of_tensors meshgrid_variadic_tensors min_binary min_reduction_no_dim min_reduction_with_dim
    minimum movedim msort mul mvlgamma_mvlgamma_p_1 mvlgamma_mvlgamma_p_3 mvlgamma_mvlgamma_p_5 nan_to_num nanmean
    nanquantile nansum narrow narrow_copy native_batch_norm native_dropout_backward native_group_norm
    native_layer_norm ne neg new_full new_ones new_zeros nn_functional_adaptive_avg_pool1d
    nn_functional_adaptive_avg_pool2d nn_functional_batch_norm nn_functional_binary_cross_entropy_with_logits
    nn_functional_celu nn_functional_cosine_embedding_loss nn_functional_cosine_similarity
    nn_functional_cross_entropy nn_functional_elu nn_functional_gaussian_nll_loss nn_functional_gelu
    nn_functional_group_norm nn_functional_hardsigmoid nn_functional_hardswish nn_functional_hardtanh
    nn_functional_hinge_embedding_loss nn_functional_instance_norm nn_functional_interpolate_bilinear
    nn_functional_interpolate_linear nn_functional_kl_div nn_functional_l1_loss nn_functional_layer_norm
    nn_functional_leaky_relu nn_functional_linear_cross_entropy nn_functional_linear_cross_entropy_chunked
    nn_functional_linear_cross_entropy_chunked_none nn_functional_logsigmoid nn_functional_margin_ranking_loss
    nn_functional_max_pool1d nn_functional_mish nn_functional_mse_loss nn_functional_multi_head_attention_forward
    nn_functional_multilabel_soft_margin_loss nn_functional_nll_loss nn_functional_normalize nn_functional_one_hot
    nn_functional_pad_circular nn_functional_pad_constant nn_functional_pad_reflect nn_functional_pad_replicate
    nn_functional_pad_replicate_negative nn_functional_pairwise_distance nn_functional_pixel_shuffle
    nn_functional_pixel_unshuffle nn_functional_poisson_nll_loss nn_functional_relu nn_functional_relu6
    nn_functional_rms_norm nn_functional_scaled_dot_product_attention nn_functional_selu nn_functional_silu
    nn_functional_soft_margin_loss nn_functional_softmin nn_functional_softmin_with_dtype nn_functional_softplus
    nn_functional_softsign nn_functional_tanhshrink nn_functional_threshold nn_functional_triplet_margin_loss
    nn_functional_triplet_margin_with_distance_loss nn_functional_upsample_bilinear nonzero norm norm_fro norm_inf
    ones ones_like outer permute permute_copy positive pow prod put quantile rad2deg ravel real reciprocal remainder
    repeat reshape reshape_as resize_ resize_as_ resolve_conj resolve_neg roll rot90 round round_decimals_0
    round_decimals_3 round_decimals_neg_3 rsqrt rsub scalar_tensor scatter scatter_add scatter_reduce_amax
    scatter_reduce_amin scatter_reduce_mean scatter_reduce_prod scatter_reduce_sum select select_scatter sgn short
    sigmoid sign signal_windows_bartlett signal_windows_blackman signal_windows_cosine signal_windows_exponential
    signal_windows_gaussian signal_windows_general_cosine signal_windows_general_hamming signal_windows_hamming
    signal_windows_hann signal_windows_kaiser signal_windows_nuttall signbit sin sinh slice slice_scatter softmax
    softmax_with_dtype sort special_ndtr split split_list_args split_with_sizes split_with_sizes_copy sqrt square
    squeeze squeeze_copy squeeze_multiple stack std std_mean std_mean_unbiased std_unbiased sub sum sum_to_size t
    t_copy take take_along_dim tan tanh tensor_split tile to topk torch_ops_aten__safe_softmax_default trace
    transpose transpose_copy trapezoid trapz tril tril_indices triu triu_indices true_divide trunc unbind
    unbind_copy unflatten unfold unfold_copy unravel_index unsafe_chunk unsafe_split unsqueeze unsqueeze_copy var
    var_mean var_mean_unbiased var_unbiased view view_as view_copy vsplit vstack where xlogy zero_ zeros zeros_like
    """.split()
)
CI_OPS = sorted(NATIVE)
DTYPES = [torch.float32, torch.bfloat16, torch.int64, torch.bool]


def ops_under_test():
    if os.environ.get("INFINI_OPINFO") == "all":
        return sorted({op.formatted_name for op in opinfo.op_db()})
    return CI_OPS


@pytest.mark.parametrize("name", ops_under_test())
def test_opinfo(name):
    entries = [op for op in opinfo.op_db() if op.formatted_name == name]
    if not entries:
        pytest.skip(f"no OpInfo entry {name} in this torch")
    problems = []
    for op in entries:
        for dt in DTYPES:
            r = opinfo.check(op, dt, max_samples=24)
            if r.status == "fail":
                problems.append(f"{op.formatted_name} {dt}: {r.detail}")
            elif r.status == "fallback" and name in NATIVE and os.environ.get("INFINI_OPINFO") != "all":
                problems.append(f"{op.formatted_name} {dt}: fell back: {r.detail}")
    assert not problems, "\n".join(problems)
