//! `ascend-sim models`: the built-in SoC models, from their chip files.

use ascend_chips::{ChipProfile, TargetOp};

/// The table: one row per SoC, its product, runtime chip type, limits and which of the eight
/// operations it supports.
pub fn table() -> String {
    let mut out = String::new();
    let ops = TargetOp::ALL;
    out.push_str("SoC                 product                                   chip type      streams  queue  L2 MiB  desc B  ");
    for op in ops {
        out.push_str(&format!("{:<3} ", short(op)));
    }
    out.push('\n');
    for chip in ChipProfile::all_builtin() {
        out.push_str(&format!(
            "{:<19} {:<41} {:<14} {:>7}  {:>5}  {:>6}  {:>6}  ",
            chip.soc_name,
            truncate(&chip.product, 41),
            format!("{:?}", chip.chip_type),
            chip.limits.max_streams,
            chip.limits.max_tasks_per_stream(),
            chip.cache.l2_bytes >> 20,
            chip.cmo.desc_size,
        ));
        for op in ops {
            out.push_str(if chip.supports(op) { "yes " } else { "-   " });
        }
        out.push('\n');
    }
    out.push_str("\noperations: ");
    let names: Vec<String> = ops
        .iter()
        .map(|&op| format!("{} {}", short(op), op.acl_name()))
        .collect();
    out.push_str(&names.join(", "));
    out.push_str(
        "\nstreams: streams per device; queue: tasks per stream; desc B: aclrtCmoGetDescSize\n",
    );
    out
}

/// A column heading for an operation.
fn short(op: TargetOp) -> &'static str {
    match op {
        TargetOp::ValueWrite => "VWr",
        TargetOp::ValueWait => "VWt",
        TargetOp::CmoAsync => "Cmo",
        TargetOp::CmoAsyncWithBarrier => "CBa",
        TargetOp::CmoWaitBarrier => "CWB",
        TargetOp::CmoGetDescSize => "CDS",
        TargetOp::CmoSetDesc => "CSD",
        TargetOp::CmoAsyncWithDesc => "CWD",
        _ => "?",
    }
}

fn truncate(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n - 1).chain(['…']).collect()
    }
}
