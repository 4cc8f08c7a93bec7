//! Simulator kernels on the shared device: a kernel's body is the launching process's code, so
//! it runs there, while the service's simulator runs its blocks. For each block the service
//! asks the process (on the process's kernel-host connection, [`HostMsg::RunBlock`]) to run
//! the body; the process runs it on a thread of its own with a connection of its own, each of
//! the block's operations one request ([`KernelOp`]) that the service's block carries out on
//! its core and answers. So a block's loads, stores, `dcci` and copies are the simulator's, in
//! its order, as for a kernel of the service's own process.
//!
//! A block the simulator ends early (a fault, its stream destroyed) answers the pending
//! operation with an end; a process that goes while its block runs ends the block with a trap
//! saying so.

use std::collections::HashMap;
use std::os::unix::net::UnixStream;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use serde::{Deserialize, Serialize};

use ascend_types::{CoreType, Kernel, KernelOps};

use super::wire::{self, Reply, Request};

/// One operation of a block, as the process sends it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[allow(missing_docs)]
pub enum KernelOp {
    Load {
        addr: u64,
        bytes: u32,
    },
    Store {
        addr: u64,
        bytes: u32,
        value: u64,
    },
    Dcci {
        addr: u64,
        entire: bool,
        kind: u64,
    },
    Dci,
    GmToLocal {
        addr: u64,
        len: u64,
    },
    LocalToGm {
        addr: u64,
        #[serde(with = "serde_bytes")]
        data: Vec<u8>,
    },
    Spin {
        cycles: u64,
    },
    Trap {
        reason: String,
    },
    /// The body returned.
    Done,
}

/// What the service sends on a process's kernel-host connection.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum HostMsg {
    /// Run block `idx` of `num` of the kernel the process launched as `launch`; attach to
    /// the block with `block`.
    RunBlock {
        /// The launch's number (the process's own).
        launch: u64,
        /// The block's index.
        idx: u32,
        /// The kernel's blocks.
        num: u32,
        /// The block's ticket ([`Request::BlockAttach`]).
        block: u64,
    },
    /// The launch will run no more blocks: the process may forget its kernel.
    Forget {
        /// The launch's number.
        launch: u64,
    },
}

// ---------------------------------------------------------------------------------------
// The service's side.

/// A message from a block's connection to the block.
enum ToBlock {
    Op(KernelOp),
    /// The connection (the process) is gone.
    Gone,
}

/// A block waiting for its process to attach: where its operations go, and where their
/// answers come from.
type BlockLink = (Sender<ToBlock>, Receiver<Reply>);

/// The service's kernel bookkeeping: each process's kernel-host connection, and the blocks
/// waiting for their process to attach.
#[derive(Default)]
pub(crate) struct ServiceKernels {
    hosts: Mutex<HashMap<u64, UnixStream>>,
    waiting: Mutex<HashMap<u64, BlockLink>>,
    next_block: Mutex<u64>,
}

impl ServiceKernels {
    /// `token`'s kernel-host connection.
    pub(crate) fn set_host(&self, token: u64, conn: UnixStream) {
        self.hosts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token, conn);
    }

    /// `token` has gone.
    pub(crate) fn forget_host(&self, token: u64) {
        self.hosts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&token);
    }

    fn send_host(&self, token: u64, msg: &HostMsg) -> bool {
        let mut hosts = self.hosts.lock().unwrap_or_else(|p| p.into_inner());
        match hosts.get_mut(&token) {
            Some(conn) => wire::send(conn, msg).is_ok(),
            None => false,
        }
    }

    /// The kernel the service runs for `token`'s launch `launch`.
    pub(crate) fn kernel(
        self: &Arc<Self>,
        token: u64,
        launch: u64,
        name: String,
        core: u8,
    ) -> Kernel {
        let me = self.clone();
        let kernel = Kernel::new(name, move |ops: &mut dyn KernelOps| {
            me.run_block(token, launch, ops);
        });
        if core == 1 {
            kernel.on(CoreType::AiCore)
        } else {
            kernel
        }
    }

    /// One block, on the simulator's core: asks the process to run it, then carries out its
    /// operations until it is done.
    fn run_block(&self, token: u64, launch: u64, ops: &mut dyn KernelOps) {
        let (to_block, from_conn) = channel();
        let (to_conn, replies) = channel();
        let block = {
            let mut n = self.next_block.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            *n
        };
        self.waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(block, (to_block, replies));
        let asked = self.send_host(
            token,
            &HostMsg::RunBlock {
                launch,
                idx: ops.block_idx(),
                num: ops.block_num(),
                block,
            },
        );
        if !asked {
            self.waiting
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&block);
            ops.trap("the process that launched the kernel is gone");
            return;
        }
        loop {
            let op = match from_conn.recv() {
                Ok(ToBlock::Op(op)) => op,
                Ok(ToBlock::Gone) | Err(_) => {
                    ops.trap("the process that launched the kernel ended while its block ran");
                    return;
                }
            };
            let reply = match op {
                KernelOp::Load { addr, bytes } => Reply::U64(ops.load(addr, bytes)),
                KernelOp::Store { addr, bytes, value } => {
                    ops.store(addr, bytes, value);
                    Reply::Unit
                }
                KernelOp::Dcci { addr, entire, kind } => {
                    ops.dcci(addr, entire, kind);
                    Reply::Unit
                }
                KernelOp::Dci => {
                    ops.dci();
                    Reply::Unit
                }
                KernelOp::GmToLocal { addr, len } => {
                    let mut local = vec![0u8; len as usize];
                    ops.copy_gm_to_local(&mut local, addr);
                    Reply::Bytes(local)
                }
                KernelOp::LocalToGm { addr, data } => {
                    ops.copy_local_to_gm(addr, &data);
                    Reply::Unit
                }
                KernelOp::Spin { cycles } => {
                    ops.spin(cycles);
                    Reply::Unit
                }
                KernelOp::Trap { reason } => {
                    ops.trap(&reason);
                    return;
                }
                KernelOp::Done => {
                    let _ = to_conn.send(Reply::Unit);
                    if ops.block_idx() + 1 == ops.block_num() {
                        let _ = self.send_host(token, &HostMsg::Forget { launch });
                    }
                    return;
                }
            };
            if to_conn.send(reply).is_err() {
                return;
            }
        }
    }

    /// Serves the connection a process attached block `block` with: each operation goes to
    /// the block and its answer back. Returns when the block is done or either side went.
    pub(crate) fn serve_block(&self, block: u64, conn: &mut UnixStream) {
        let Some((to_block, replies)) = self
            .waiting
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&block)
        else {
            return;
        };
        // A block that ended early drops its end of `replies`: the pending operation is then
        // answered with an end, so the process stops running the body.
        let ended = Reply::Err(wire::WireError::TaskFault(
            "the simulator ended the block (a fault, or its stream destroyed)".into(),
        ));
        loop {
            let op = match wire::receive::<Request>(conn) {
                Ok(Some(Request::KernelOp(op))) => op,
                _ => {
                    let _ = to_block.send(ToBlock::Gone);
                    return;
                }
            };
            let done = matches!(op, KernelOp::Done | KernelOp::Trap { .. });
            if to_block.send(ToBlock::Op(op)).is_err() {
                let _ = wire::send(conn, &ended);
                return;
            }
            let reply = replies.recv().unwrap_or_else(|_| ended.clone());
            if wire::send(conn, &reply).is_err() || done {
                return;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The process's side.

/// The process's launched kernels, by launch number, and its kernel host.
#[derive(Default)]
pub(crate) struct ClientKernels {
    kernels: Arc<Mutex<HashMap<u64, Kernel>>>,
    next: Mutex<u64>,
    host_started: Mutex<bool>,
}

impl std::fmt::Debug for ClientKernels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientKernels").finish_non_exhaustive()
    }
}

impl ClientKernels {
    /// Keeps `kernel` for its blocks; starts the kernel host on first use (`connect` opens a
    /// connection of the process's). Returns the launch number.
    pub(crate) fn register(
        &self,
        kernel: Kernel,
        connect: impl Fn() -> Option<UnixStream> + Send + Sync + 'static,
    ) -> Option<u64> {
        let launch = {
            let mut n = self.next.lock().unwrap_or_else(|p| p.into_inner());
            *n += 1;
            *n
        };
        self.kernels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(launch, kernel);
        let mut started = self.host_started.lock().unwrap_or_else(|p| p.into_inner());
        if !*started {
            let mut host = connect()?;
            wire::send(&mut host, &Request::KernelHost).ok()?;
            // The service has it once it says so: only then may a launch need it.
            match wire::receive::<Reply>(&mut host) {
                Ok(Some(Reply::Unit)) => {}
                _ => return None,
            }
            let kernels = self.kernels.clone();
            let connect = Arc::new(connect);
            std::thread::Builder::new()
                .name("ascend-kernel-host".into())
                .spawn(move || host_loop(host, kernels, connect))
                .ok()?;
            *started = true;
        }
        Some(launch)
    }
}

/// The kernel host: runs each block the service asks for on a thread of its own.
fn host_loop(
    mut host: UnixStream,
    kernels: Arc<Mutex<HashMap<u64, Kernel>>>,
    connect: Arc<dyn Fn() -> Option<UnixStream> + Send + Sync>,
) {
    while let Ok(Some(msg)) = wire::receive::<HostMsg>(&mut host) {
        match msg {
            HostMsg::Forget { launch } => {
                kernels
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .remove(&launch);
            }
            HostMsg::RunBlock {
                launch,
                idx,
                num,
                block,
            } => {
                let kernel = kernels
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&launch)
                    .cloned();
                let connect = connect.clone();
                let _ = std::thread::Builder::new()
                    .name("ascend-kernel-block".into())
                    .spawn(move || run_block_here(kernel, idx, num, block, &*connect));
            }
        }
    }
}

/// Runs block `idx` of `num` of `kernel` in this process, attached to the service's block
/// `block` by a connection of its own; says when the body returned, or traps its panic.
fn run_block_here(
    kernel: Option<Kernel>,
    idx: u32,
    num: u32,
    block: u64,
    connect: &(dyn Fn() -> Option<UnixStream> + Send + Sync),
) {
    let Some(mut conn) = connect() else {
        return;
    };
    if wire::send(&mut conn, &Request::BlockAttach { block }).is_err() {
        return;
    }
    let mut ops = RemoteOps { conn, idx, num };
    let Some(kernel) = kernel else {
        ops.trap("the kernel of this launch is not known to its process");
        return;
    };
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| kernel.run(&mut ops)));
    let last = match ran {
        Ok(()) => KernelOp::Done,
        Err(p) if p.is::<BlockEnded>() => return,
        Err(p) => KernelOp::Trap {
            reason: format!(
                "kernel {} panicked: {}",
                kernel.name(),
                ascend_types::panic_text(&*p)
            ),
        },
    };
    let _ = ops.ask(last);
}

/// Unwinds a block's body once the service has ended the block.
struct BlockEnded;

/// A block's operations, each a request to the service's block.
struct RemoteOps {
    conn: UnixStream,
    idx: u32,
    num: u32,
}

impl RemoteOps {
    fn ask(&mut self, op: KernelOp) -> Option<Reply> {
        wire::send(&mut self.conn, &Request::KernelOp(op)).ok()?;
        match wire::receive::<Reply>(&mut self.conn) {
            Ok(Some(Reply::Err(_))) | Ok(None) | Err(_) => None,
            Ok(Some(r)) => Some(r),
        }
    }

    /// Carries out `op`; a block the service ended does not return to the kernel.
    fn op(&mut self, op: KernelOp) -> Reply {
        match self.ask(op) {
            Some(r) => r,
            None => std::panic::resume_unwind(Box::new(BlockEnded)),
        }
    }
}

impl KernelOps for RemoteOps {
    fn block_idx(&self) -> u32 {
        self.idx
    }

    fn block_num(&self) -> u32 {
        self.num
    }

    fn load(&mut self, gm: u64, bytes: u32) -> u64 {
        match self.op(KernelOp::Load { addr: gm, bytes }) {
            Reply::U64(v) => v,
            _ => 0,
        }
    }

    fn store(&mut self, gm: u64, bytes: u32, value: u64) {
        self.op(KernelOp::Store {
            addr: gm,
            bytes,
            value,
        });
    }

    fn dcci(&mut self, gm: u64, entire: bool, kind: u64) {
        self.op(KernelOp::Dcci {
            addr: gm,
            entire,
            kind,
        });
    }

    fn dci(&mut self) {
        self.op(KernelOp::Dci);
    }

    fn copy_gm_to_local(&mut self, local: &mut [u8], gm: u64) {
        if let Reply::Bytes(b) = self.op(KernelOp::GmToLocal {
            addr: gm,
            len: local.len() as u64,
        }) {
            let n = b.len().min(local.len());
            local[..n].copy_from_slice(&b[..n]);
        }
    }

    fn copy_local_to_gm(&mut self, gm: u64, local: &[u8]) {
        self.op(KernelOp::LocalToGm {
            addr: gm,
            data: local.to_vec(),
        });
    }

    fn spin(&mut self, cycles: u64) {
        self.op(KernelOp::Spin { cycles });
    }

    fn trap(&mut self, reason: &str) {
        let _ = self.ask(KernelOp::Trap {
            reason: reason.to_string(),
        });
        std::panic::resume_unwind(Box::new(BlockEnded));
    }
}
