//! Cost of the front end's validation: a rejected call (decided before the backend) and an
//! accepted task launch.

#![allow(missing_docs)] // criterion_group! generates undocumented public functions

use criterion::{criterion_group, criterion_main, Criterion};

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

fn validation(c: &mut Criterion) {
    let rt = Runtime::sim("Ascend910B1").unwrap();
    rt.set_device(0).unwrap();
    let mut x = Addr::NULL;
    rt.malloc(Some(&mut x), 64, malloc_policy::NORMAL_ONLY)
        .unwrap();
    let mut g = c.benchmark_group("validation");
    g.bench_function("value_write_bad_flag", |b| {
        b.iter(|| rt.value_write(x, 1, 1, RawStream::NULL).unwrap_err())
    });
    g.bench_function("cmo_barrier_unsupported_chip", |b| {
        b.iter(|| {
            rt.cmo_async_with_barrier(x, 64, cmo_type::INVALID, 1, RawStream::NULL)
                .unwrap_err()
        })
    });
    g.bench_function("value_write_accepted", |b| {
        let mut n = 0u64;
        b.iter(|| {
            n += 1;
            rt.value_write(x, n, 0, RawStream::NULL).unwrap();
            if n.is_multiple_of(1000) {
                rt.synchronize_stream(RawStream::NULL).unwrap();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, validation);
criterion_main!(benches);
