//! What a block did last, kept as plain data (no text is made per operation) and said only
//! when a diagnosis or report reads it; and the few lines a block filled last, in fixed storage.

use std::fmt;

use super::Request;

/// A block's last operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LastOp {
    /// It has not asked for anything yet.
    #[default]
    Started,
    /// A scalar load.
    Load { addr: u64, bytes: u32 },
    /// A scalar store.
    Store { addr: u64, bytes: u32, value: u64 },
    /// A `dcci` of one line or of the whole cache.
    Dcci { addr: u64, entire: bool, kind: u64 },
    /// A `dci`.
    Dci,
    /// A copy from global memory into a local buffer.
    GmToLocal { gm: u64, len: u64 },
    /// A copy from a local buffer into global memory.
    LocalToGm { gm: u64, len: u64 },
    /// Cycles spent.
    Spin { cycles: u64 },
    /// It returned, panicked or trapped.
    End,
}

impl LastOp {
    /// The operation `op` asks for.
    pub fn of(op: &Request) -> LastOp {
        match *op {
            Request::Load { addr, bytes } => LastOp::Load { addr, bytes },
            Request::Store { addr, bytes, value } => LastOp::Store { addr, bytes, value },
            Request::Dcci { addr, entire, kind } => LastOp::Dcci { addr, entire, kind },
            Request::Dci => LastOp::Dci,
            Request::GmToLocal { gm, len } => LastOp::GmToLocal { gm, len },
            Request::LocalToGm { gm, ref data } => LastOp::LocalToGm {
                gm,
                len: data.len() as u64,
            },
            Request::Spin { cycles } => LastOp::Spin { cycles },
            Request::Trap(_)
            | Request::Done
            | Request::Panicked(_)
            | Request::Abandoned
            | Request::StackOverflow => LastOp::End,
        }
    }
}

impl fmt::Display for LastOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LastOp::Started => write!(f, "started"),
            LastOp::Load { addr, bytes } => write!(f, "a {bytes}-byte load from {addr:#x}"),
            LastOp::Store { addr, bytes, value } => {
                write!(f, "a {bytes}-byte store of {value:#x} to {addr:#x}")
            }
            LastOp::Dcci { addr, entire, kind } => {
                if entire {
                    write!(f, "a dcci of the whole data cache (type {kind})")
                } else {
                    write!(f, "a dcci of the line holding {addr:#x} (type {kind})")
                }
            }
            LastOp::Dci => write!(f, "a dci"),
            LastOp::GmToLocal { gm, len } => write!(f, "a copy of {len} bytes from {gm:#x}"),
            LastOp::LocalToGm { gm, len } => write!(f, "a copy of {len} bytes to {gm:#x}"),
            LastOp::Spin { cycles } => write!(f, "a spin of {cycles} cycles"),
            LastOp::End => write!(f, "its end"),
        }
    }
}

/// Lines remembered per block.
const RECENT: usize = 16;

/// The last [`RECENT`] distinct lines a block filled, oldest overwritten first.
#[derive(Debug, Clone, Default)]
pub struct RecentFills {
    lines: [u64; RECENT],
    len: usize,
    next: usize,
}

impl RecentFills {
    /// True when `line` is among them.
    pub fn contains(&self, line: u64) -> bool {
        self.lines[..self.len].contains(&line)
    }

    /// Remembers `line`, forgetting the oldest when full.
    pub fn push(&mut self, line: u64) {
        self.lines[self.next] = line;
        self.next = (self.next + 1) % RECENT;
        self.len = (self.len + 1).min(RECENT);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_fills_forget_the_oldest_line_first() {
        let mut r = RecentFills::default();
        for l in 0..RECENT as u64 {
            r.push(l);
        }
        assert!(r.contains(0) && r.contains(RECENT as u64 - 1));
        r.push(100);
        assert!(!r.contains(0));
        assert!(r.contains(1) && r.contains(100));
    }
}
