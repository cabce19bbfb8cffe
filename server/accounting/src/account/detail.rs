//! The detail text of a record, formatted on demand as torchcts writes it.

use super::placeholder;
use super::result::Accounting;
use super::result::Detail;
use super::result::DtypeLabel;
use super::result::LabelKind;
use super::result::NodeRef;
use super::result::Record;
use crate::inventory::CUSTOM_DEVICE_PLACEHOLDER;
use crate::pyfmt::fmt_g;

impl Accounting<'_> {
    /// The detail text, as torchcts writes it.
    pub fn detail(&self, rec: &Record) -> String {
        let text = self.detail_text(rec);
        // Details that quote the node id (backend gates) quote it as the run roots it.
        let prefix = &self.layout.node_prefix;
        if !prefix.is_empty() && matches!(rec.detail, Detail::Text(_) | Detail::DeviceText(_)) {
            let id = self.node_id(rec);
            if text.starts_with(&id) {
                return format!("{prefix}{text}");
            }
        }
        text
    }

    pub(super) fn detail_text(&self, rec: &Record) -> String {
        let inv = self.inventory;
        let label = |l: &DtypeLabel| dtype_label(inv.string(l.dt), l.kind);
        match &rec.detail {
            Detail::Text(s) => inv.string(*s).to_string(),
            Detail::DeviceText(s) => {
                let t = inv.string(*s);
                if self.device.class == CUSTOM_DEVICE_PLACEHOLDER && self.device.device != CUSTOM_DEVICE_PLACEHOLDER {
                    t.replace(CUSTOM_DEVICE_PLACEHOLDER, &self.device.device)
                } else {
                    t.to_string()
                }
            }
            Detail::NotListed(l) => format!("{} not in supported_dtypes", label(l)),
            Detail::DeclaredUnsupported(l) => format!("{} is declared unsupported in supported_dtypes", label(l)),
            Detail::RegexFiltered { label: l, op, pattern } => {
                let op_detail = match op {
                    Some(op) if !inv.string(*op).is_empty() => format!("op {} ", inv.string(*op)),
                    _ => String::new(),
                };
                format!(
                    "{op_detail}filtered out by {} regex: {}",
                    label(l),
                    self.facts_repr.patterns[*pattern as usize]
                )
            }
            Detail::UnsupportedValue { label: l, value } => format!(
                "{} has unsupported manifest filter value {}",
                label(l),
                self.facts_repr.values[*value as usize]
            ),
            Detail::MissingCapabilities { node, mask } => {
                let requires = match node {
                    NodeRef::Item(i) => &inv.items[*i as usize].requires,
                    NodeRef::Placeholder(k) => &placeholder(inv, *k).requires,
                    NodeRef::Pending { .. } => return String::new(),
                };
                let names: Vec<&str> = requires
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1u64 << i) != 0)
                    .map(|(_, c)| inv.string(*c))
                    .collect();
                format!("requires capabilities: {}", names.join(", "))
            }
            Detail::DeviceCount => {
                format!("requires device_count>=2, runtime exposes {}", self.facts_repr.device_count)
            }
            Detail::OpExcluded(op) => format!("{} is in skip_ops list", inv.string(*op)),
            Detail::ContainerFormat(p) => {
                format!("Container format '{}' not in supported_container_formats", inv.string(*p))
            }
            Detail::ContainerDecoder(p) => {
                format!("No custom decoder declared for container format '{}'", inv.string(*p))
            }
            Detail::MaxTensorSize(v) => format!("Max tensor size is limited to {}MB by resource limits.", fmt_g(*v)),
            Detail::DeviceMemory(v) => {
                format!("Device memory is too small ({}GB) for >2GB tensor stress test.", fmt_g(*v))
            }
            Detail::Capability(c) => format!("requires capabilities: {c}"),
            Detail::GeneratedNoDtypes(n) => {
                format!("No manifest-enabled dtypes selected for generated {}", inv.string(*n))
            }
            Detail::GeneratedCpuContract(n) => format!(
                "cpu_contract_unsupported: no selected dtype is executable under the PyTorch CPU contract for {}",
                inv.string(*n)
            ),
            Detail::GeneratedShape(n) => {
                format!("coverage_strategy_pending: no manifest-enabled shape cases for {}", inv.string(*n))
            }
            Detail::OomNotRecoverable => "OOM recovery not marked as recoverable in manifest".to_string(),
            Detail::PathShapeEmpty => {
                "no tracked path-shape rows matched this module's runner and selectors".to_string()
            }
            Detail::OpinfoEmpty => "No OpInfo tests matched the manifest filters.".to_string(),
            Detail::KnownCrash => "known confirmed backend crash recorded without executing the backend op".to_string(),
            Detail::LevelAbove(l) => {
                format!("semantic_level={l} exceeds requested level {}", self.facts_repr.max_level)
            }
            Detail::LevelOutside(l) => format!("semantic_level={l} is outside {}", self.facts_repr.label),
        }
    }
}

/// How a detail text names dtype `dt`.
fn dtype_label(dt: &str, kind: LabelKind) -> String {
    match kind {
        LabelKind::Plain => dt.to_string(),
        LabelKind::Autocast => format!("{dt} (autocast_dtype)"),
        LabelKind::Src => format!("{dt} (src_dtype)"),
        LabelKind::Dst => format!("{dt} (dst_dtype)"),
        LabelKind::Fixed => format!("{dt} (fixed dtype)"),
        LabelKind::Gradcheck => "torch.float64 (required for gradcheck)".to_string(),
    }
}
