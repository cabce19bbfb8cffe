//! Which tests a tolerance override (`"category:dtype"`) loosens.
//!
//! torchcts picks a comparison's tolerance category at run time, so no inventory records it.
//! For the OpInfo tests the choice is a function of the operator's name, which the node id
//! carries: `test_op_forward[<condition>-<op>-<dtype>]` compares under `get_op_category(op)`
//! (`opinfo/test_opinfo_forward.py`), `test_op_backward[<op>-<dtype>]` under
//! `matmul_backward` when the name holds `mm` or `matmul`, else `backward`
//! (`opinfo/test_opinfo_backward.py`). Other tests choose their category in their own code
//! and are not attributed to an override (said in the hover).

/// (tolerance category, dtype as `torch.<name>`) the test with `node_id` compares under, for
/// the OpInfo forward and backward tests; `None` for any other test.
pub fn compare_key(node_id: &str) -> Option<(&'static str, &str)> {
    let (file, rest) = node_id.split_once("::")?;
    let params = rest.split_once('[')?.1.strip_suffix(']')?;
    let (front, dtype) = params.rsplit_once('-')?;
    if file.ends_with("opinfo/test_opinfo_forward.py") && rest.starts_with("test_op_forward[") {
        let op = front.split_once('-')?.1;
        Some((forward_category(op), dtype))
    } else if file.ends_with("opinfo/test_opinfo_backward.py") && rest.starts_with("test_op_backward[") {
        let op = front;
        Some((if op.contains("mm") || op.contains("matmul") { "matmul_backward" } else { "backward" }, dtype))
    } else {
        None
    }
}

/// (category, dtype) of an override key as torchcts's `normalize_tolerance_overrides` splits
/// it (`category:dtype` or `category/dtype`, trimmed), the dtype as `torch.<name>`.
pub fn override_key(key: &str) -> Option<(String, String)> {
    let (category, dtype) = key.split_once(':').or_else(|| key.split_once('/'))?;
    let (category, dtype) = (category.trim(), dtype.trim());
    if category.is_empty() || dtype.is_empty() {
        return None;
    }
    let dtype = if dtype.starts_with("torch.") { dtype.to_string() } else { format!("torch.{dtype}") };
    Some((category.to_string(), dtype))
}

/// torchcts 0.4.1's `get_op_category`, check for check.
fn forward_category(op_name: &str) -> &'static str {
    let op = op_name.to_lowercase();
    let any = |keys: &[&str]| keys.iter().any(|k| op.contains(k));
    if any(&["scaled_dot_product_attention", "multi_head_attention"]) {
        "sdpa"
    } else if any(&["_mm", "matmul", "dot", "mv", "bmm", "addmm", "addbmm", "addmv", "baddbmm", "addr", "linear"]) {
        "matmul"
    } else if any(&[
        "cross_entropy",
        "nll_loss",
        "binary_cross_entropy",
        "mse_loss",
        "l1_loss",
        "smooth_l1_loss",
        "huber_loss",
        "kl_div",
        "poisson_nll_loss",
        "margin_ranking_loss",
        "hinge_embedding_loss",
        "multi_margin_loss",
        "multilabel_margin_loss",
        "multilabel_soft_margin_loss",
        "soft_margin_loss",
        "triplet_margin_loss",
        "cosine_embedding_loss",
        "ctc_loss",
    ]) {
        "loss"
    } else if any(&["grid_sample", "grid_sampler"]) {
        "grid_sample"
    } else if op.contains("conv") {
        "conv"
    } else if any(&[
        "sum",
        "mean",
        "std",
        "var",
        "norm",
        "amax",
        "amin",
        "prod",
        "cumsum",
        "cumprod",
        "logsumexp",
        "logcumsumexp",
        "softmax",
        "_softmax_backward_data",
        "index_reduce",
        "_unsafe_masked_index",
        "cov",
    ]) {
        "reduction"
    } else if any(&["batch_norm", "group_norm", "layer_norm", "instance_norm", "normalize"]) {
        "norm"
    } else if op.contains("linalg")
        || any(&[
            "cholesky",
            "svd",
            "eig",
            "qr",
            "lu",
            "solve",
            "householder",
            "det",
            "slogdet",
            "pinverse",
            "matrix_power",
        ])
    {
        "linalg"
    } else if op.contains("fft") {
        "fft"
    } else if any(&["copy", "clone", "to_copy"]) {
        "copy"
    } else if any(&["upsample", "interpolate"]) {
        "reduction"
    } else {
        "elementwise"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opinfo_tests_compare_under_their_operators_category() {
        let forward = |op: &str| format!("opinfo/test_opinfo_forward.py::test_op_forward[clean-{op}-torch.float16]");
        assert_eq!(compare_key(&forward("add")), Some(("elementwise", "torch.float16")));
        assert_eq!(compare_key(&forward("matmul")), Some(("matmul", "torch.float16")));
        // "addmm" holds "mm" and "sum" does not come first: matmul is checked before reduction.
        assert_eq!(compare_key(&forward("addmm")).map(|k| k.0), Some("matmul"));
        assert_eq!(compare_key(&forward("sum")).map(|k| k.0), Some("reduction"));
        assert_eq!(compare_key(&forward("nn.functional.conv2d")).map(|k| k.0), Some("conv"));
        assert_eq!(compare_key(&forward("nn.functional.layer_norm")).map(|k| k.0), Some("reduction"));
        assert_eq!(
            compare_key("opinfo/test_opinfo_backward.py::test_op_backward[bmm-torch.float32]"),
            Some(("matmul_backward", "torch.float32"))
        );
        assert_eq!(
            compare_key("opinfo/test_opinfo_backward.py::test_op_backward[add-torch.float32]"),
            Some(("backward", "torch.float32"))
        );
        assert_eq!(compare_key("nn/test_modules.py::test_module[Linear-torch.float32]"), None);
    }

    #[test]
    fn override_keys_as_torchcts_splits_them() {
        assert_eq!(override_key("matmul:torch.float16"), Some(("matmul".into(), "torch.float16".into())));
        assert_eq!(override_key(" matmul / float16 "), Some(("matmul".into(), "torch.float16".into())));
        assert_eq!(override_key("matmul"), None);
        assert_eq!(override_key(":torch.float16"), None);
    }
}
