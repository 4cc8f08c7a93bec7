//! The shared device: one simulator several processes use at once, through a service
//! ([`server::DeviceService`], run by `ascend-sim device`) that each process's runtime reaches
//! as its backend ([`client::SharedDeviceClient`]) over a Unix socket. A process that names no
//! service keeps the in-process simulator.

pub mod client;
pub mod kernels;
mod mirrors;
pub mod server;
pub mod wire;
