//! Cases of cache maintenance (CMO): the validation rows of the asynchronous, barrier and
//! descriptor forms, and the barrier pair and the descriptor CMO on model-bound streams.

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn cmo_async_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let buf = malloc(rt, 4096);
    expect(
        "CmoAsync src NULL",
        rt.cmo_async(Addr::NULL, 64, cmo_type::PREFETCH, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "CmoAsync size 0",
        rt.cmo_async(buf, 0, cmo_type::PREFETCH, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "CmoAsync cmoType 4",
        rt.cmo_async(buf, 64, 4, RawStream::NULL),
        NOT_SUPPORTED,
    );
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsync on a model-bound stream",
        rt.cmo_async(buf, 64, cmo_type::PREFETCH, s),
        NOT_SUPPORTED,
    );
    drop_model(rt, m, s);
    if f.task_cmo {
        for t in [
            cmo_type::PREFETCH,
            cmo_type::WRITEBACK,
            cmo_type::INVALID,
            cmo_type::FLUSH,
        ] {
            expect(
                "CmoAsync valid (all four types)",
                rt.cmo_async(buf, 4096, t, RawStream::NULL),
                0,
            );
        }
        rt.synchronize_stream(RawStream::NULL).expect("sync");
    } else {
        expect(
            "CmoAsync valid on a chip without it",
            rt.cmo_async(buf, 64, cmo_type::PREFETCH, RawStream::NULL),
            NOT_SUPPORTED,
        );
    }
    Ok(())
}

fn barrier_info(entries: &[(u32, u32)]) -> RawBarrierTaskInfo {
    let mut info = RawBarrierTaskInfo {
        barrier_num: entries.len(),
        ..Default::default()
    };
    for (slot, &(t, id)) in info.cmo_info.iter_mut().zip(entries) {
        *slot = RawBarrierCmoInfo {
            cmo_type: t,
            barrier_id: id,
        };
    }
    info
}

pub(crate) fn cmo_barrier_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let ok = rt.chip().features.task_async_cmo;
    let gate = |code| pick(ok, code, NOT_SUPPORTED);
    let buf = malloc(rt, 4096);
    let n = RawStream::NULL;
    expect(
        "CmoAsyncWithBarrier src NULL",
        rt.cmo_async_with_barrier(Addr::NULL, 64, cmo_type::INVALID, 1, n),
        INVALID_PARAM,
    );
    expect(
        "CmoAsyncWithBarrier size 0",
        rt.cmo_async_with_barrier(buf, 0, cmo_type::INVALID, 1, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier INVALID with id 0",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 0, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier PREFETCH with id 1",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::PREFETCH, 1, n),
        gate(RT_PARAM),
    );
    expect(
        "CmoAsyncWithBarrier cmoType 4",
        rt.cmo_async_with_barrier(buf, 64, 4, 0, n),
        NOT_SUPPORTED,
    );
    expect(
        "CmoAsyncWithBarrier valid on the NULL stream",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 1, n),
        gate(RT_INTERNAL),
    );
    let s = stream(rt);
    expect(
        "CmoAsyncWithBarrier valid on a plain stream",
        rt.cmo_async_with_barrier(buf, 64, cmo_type::INVALID, 1, s),
        gate(RT_INTERNAL),
    );
    expect(
        "CmoWaitBarrier NULL",
        rt.cmo_wait_barrier(None, n, 0),
        INVALID_PARAM,
    );
    expect(
        "CmoWaitBarrier count 0",
        rt.cmo_wait_barrier(Some(&barrier_info(&[])), n, 0),
        INVALID_PARAM,
    );
    let mut seven = barrier_info(&[(cmo_type::INVALID, 1)]);
    seven.barrier_num = 7;
    expect(
        "CmoWaitBarrier count 7",
        rt.cmo_wait_barrier(Some(&seven), n, 0),
        INVALID_PARAM,
    );
    expect(
        "CmoWaitBarrier entry type PREFETCH (before the gate)",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::PREFETCH, 1)])), n, 0),
        RT_PARAM,
    );
    expect(
        "CmoWaitBarrier entry id 0 (before the gate)",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 0)])), n, 0),
        RT_PARAM,
    );
    expect(
        "CmoWaitBarrier valid on a plain stream",
        rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 1)])), s, 0),
        gate(RT_INTERNAL),
    );
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    Ok(())
}

pub(crate) fn cmo_desc_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let chip = rt.chip().clone();
    let cmo = chip.features.task_cmo;
    let with_desc = chip.cmo.desc_size != 0;
    let buf = malloc(rt, 4096);
    let desc = malloc(rt, 128);
    expect(
        "CmoGetDescSize NULL",
        rt.cmo_get_desc_size(None),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    let mut size = 0usize;
    expect(
        "CmoGetDescSize",
        rt.cmo_get_desc_size(Some(&mut size)),
        pick(cmo, 0, NOT_SUPPORTED),
    );
    if cmo {
        assert_eq!(size, chip.cmo.desc_size as usize, "descriptor size");
    }
    expect(
        "CmoSetDesc desc NULL",
        rt.cmo_set_desc(Addr::NULL, buf, 64),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoSetDesc src NULL",
        rt.cmo_set_desc(desc, Addr::NULL, 64),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoSetDesc size 0",
        rt.cmo_set_desc(desc, buf, 0),
        pick(cmo, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc reserve not NULL (any chip)",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, RawStream::NULL, Addr(8)),
        RT_PARAM,
    );
    expect(
        "CmoAsyncWithDesc desc NULL",
        rt.cmo_async_with_desc(Addr::NULL, cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc cmoType 4",
        rt.cmo_async_with_desc(desc, 4, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_PARAM, NOT_SUPPORTED),
    );
    expect(
        "CmoAsyncWithDesc on the NULL stream",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, RawStream::NULL, Addr::NULL),
        pick(with_desc, RT_INTERNAL, NOT_SUPPORTED),
    );
    Ok(())
}

pub(crate) fn barrier_cmo_on_model_stream(rt: &Runtime) -> CaseResult {
    let f = rt.chip().features;
    if !f.task_async_cmo {
        return Err(format!(
            "{} has no barrier CMO (RT_FEATURE_TASK_ASYNC_CMO; Atlas 200I/500 A2 only)",
            rt.chip().soc_name
        ));
    }
    let _d = Dev::open(rt);
    let buf = malloc(rt, 8192);
    // docs/validation/models.md, the barrier recipe, steps 2-8.
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsyncWithBarrier INVALID id 1",
        rt.cmo_async_with_barrier(buf, 4096, cmo_type::INVALID, 1, s),
        0,
    );
    expect(
        "CmoAsyncWithBarrier INVALID id 2",
        rt.cmo_async_with_barrier(buf.offset(4096), 4096, cmo_type::INVALID, 2, s),
        0,
    );
    expect(
        "CmoAsyncWithBarrier PREFETCH id 0",
        rt.cmo_async_with_barrier(buf, 4096, cmo_type::PREFETCH, 0, s),
        0,
    );
    if f.model_cmo_barrier {
        expect(
            "CmoWaitBarrier id unknown to the model",
            rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 3)])), s, 0),
            STREAM_MODEL,
        );
    }
    expect(
        "CmoWaitBarrier ids 1 and 2",
        rt.cmo_wait_barrier(
            Some(&barrier_info(&[
                (cmo_type::INVALID, 1),
                (cmo_type::INVALID, 2),
            ])),
            s,
            0,
        ),
        0,
    );
    finish_model(rt, m, s);
    for _ in 0..2 {
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
    }
    // A second model does not know the first one's ids.
    if f.model_cmo_barrier {
        let (m2, s2) = model_with_stream(rt);
        expect(
            "CmoWaitBarrier id of another model",
            rt.cmo_wait_barrier(Some(&barrier_info(&[(cmo_type::INVALID, 1)])), s2, 0),
            STREAM_MODEL,
        );
        drop_model(rt, m2, s2);
    }
    drop_model(rt, m, s);
    Ok(())
}

pub(crate) fn desc_cmo_on_model_stream(rt: &Runtime) -> CaseResult {
    let chip = rt.chip().clone();
    if chip.cmo.desc_size == 0 || !chip.features.task_cmo {
        return Err(format!("{} has no CMO descriptors", chip.soc_name));
    }
    let _d = Dev::open(rt);
    let mut size = 0usize;
    rt.cmo_get_desc_size(Some(&mut size))
        .expect("aclrtCmoGetDescSize");
    let buf = malloc(rt, 8192);
    let desc = malloc(rt, size);
    rt.cmo_set_desc(desc, buf, 8192).expect("aclrtCmoSetDesc");
    let plain = stream(rt);
    expect(
        "CmoAsyncWithDesc on a plain stream",
        rt.cmo_async_with_desc(desc, cmo_type::PREFETCH, plain, Addr::NULL),
        RT_INTERNAL,
    );
    let (m, s) = model_with_stream(rt);
    expect(
        "CmoAsync on the model-bound stream",
        rt.cmo_async(buf, 64, cmo_type::PREFETCH, s),
        NOT_SUPPORTED,
    );
    for t in [cmo_type::PREFETCH, cmo_type::WRITEBACK] {
        expect(
            "CmoAsyncWithDesc on a model-bound stream",
            rt.cmo_async_with_desc(desc, t, s, Addr::NULL),
            0,
        );
    }
    finish_model(rt, m, s);
    for _ in 0..2 {
        rt.mdl_ri_execute(m, -1).expect("aclmdlRIExecute");
    }
    drop_model(rt, m, s);
    rt.destroy_stream(plain).expect("destroy");
    Ok(())
}
