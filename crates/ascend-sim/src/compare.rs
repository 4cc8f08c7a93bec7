//! The value-wait compare predicates, exactly as the scheduler's program evaluates them
//! (docs/validation/value-write-wait.md, compare predicates), and their human-readable
//! explanation for diagnoses.

use crate::types::{GeqSemantics, WaitMode};

/// True when the word `m` releases a wait for `v` under `mode`.
pub fn satisfied(mode: WaitMode, geq: GeqSemantics, m: u64, v: u64) -> bool {
    match mode {
        WaitMode::Geq => match geq {
            GeqSemantics::SignedIsa => (m as i64) >= (v as i64),
            GeqSemantics::Cyclic => (m.wrapping_sub(v) as i64) >= 0,
        },
        WaitMode::Eq => m == v,
        WaitMode::And => (m & v) != 0,
        WaitMode::Nor => (m | v) != u64::MAX,
    }
}

/// The predicate with its numbers, e.g. `EQ: mem 0x0 == 0x64 is false`.
pub fn describe(mode: WaitMode, geq: GeqSemantics, m: u64, v: u64) -> String {
    let truth = satisfied(mode, geq, m, v);
    match mode {
        WaitMode::Geq => match geq {
            GeqSemantics::SignedIsa => format!(
                "GEQ (signed): (i64)mem {} >= (i64){} is {truth}",
                m as i64, v as i64
            ),
            GeqSemantics::Cyclic => format!(
                "GEQ (cyclic): (i64)(mem {m:#x} - {v:#x}) = {} >= 0 is {truth}",
                m.wrapping_sub(v) as i64
            ),
        },
        WaitMode::Eq => format!("EQ: mem {m:#x} == {v:#x} is {truth}"),
        WaitMode::And => format!("AND: (mem {m:#x} & {v:#x}) != 0 is {truth}"),
        WaitMode::Nor => format!("NOR: (mem {m:#x} | {v:#x}) != 0xffffffffffffffff is {truth}"),
    }
}

/// The short name of a mode (`GEQ`, `EQ`, `AND`, `NOR`).
pub fn mode_name(mode: WaitMode) -> &'static str {
    match mode {
        WaitMode::Geq => "GEQ",
        WaitMode::Eq => "EQ",
        WaitMode::And => "AND",
        WaitMode::Nor => "NOR",
    }
}

/// A wait's operand as it reads best, for the mode named `mode` ([`mode_name`]): AND and NOR
/// compare bit masks, said in hexadecimal; GEQ and EQ compare numbers, said in decimal.
pub fn operand_text(mode: &str, value: u64) -> String {
    if compares_bits(mode) {
        format!("{value:#x}")
    } else {
        value.to_string()
    }
}

/// True for the modes named `mode` whose operand is a bit mask (AND, NOR).
pub fn compares_bits(mode: &str) -> bool {
    matches!(mode, "AND" | "NOR")
}

#[cfg(test)]
mod tests {
    use super::*;
    use GeqSemantics::{Cyclic, SignedIsa};
    use WaitMode::*;

    #[test]
    fn geq_counter_examples() {
        // m = INT64_MIN, v = 1: the cyclic difference wraps to INT64_MAX (released); signed waits.
        assert!(satisfied(Geq, Cyclic, 0x8000_0000_0000_0000, 1));
        assert!(!satisfied(Geq, SignedIsa, 0x8000_0000_0000_0000, 1));
        // m = INT64_MAX, v = INT64_MIN: signed releases, cyclic difference is -1 (waits).
        assert!(satisfied(
            Geq,
            SignedIsa,
            0x7FFF_FFFF_FFFF_FFFF,
            0x8000_0000_0000_0000
        ));
        assert!(!satisfied(
            Geq,
            Cyclic,
            0x7FFF_FFFF_FFFF_FFFF,
            0x8000_0000_0000_0000
        ));
        for g in [Cyclic, SignedIsa] {
            assert!(satisfied(Geq, g, 5, 3));
            assert!(satisfied(Geq, g, 3, 3));
            assert!(!satisfied(Geq, g, 3, 5));
        }
    }

    #[test]
    fn other_modes() {
        assert!(satisfied(Eq, SignedIsa, 100, 100));
        assert!(!satisfied(Eq, SignedIsa, 100, 101));
        assert!(satisfied(And, SignedIsa, 0b1010, 0b0010));
        assert!(!satisfied(And, SignedIsa, 0b1010, 0b0101));
        assert!(satisfied(Nor, SignedIsa, 0, 0));
        assert!(!satisfied(
            Nor,
            SignedIsa,
            0xFFFF_0000_0000_0000,
            0x0000_FFFF_FFFF_FFFF
        ));
        assert!(satisfied(
            Nor,
            SignedIsa,
            0xFFFF_0000_0000_0000,
            0x0000_FFFF_FFFF_FFFE
        ));
    }

    #[test]
    fn description_has_numbers() {
        assert_eq!(
            describe(Eq, SignedIsa, 0, 100),
            "EQ: mem 0x0 == 0x64 is false"
        );
    }
}
