//! Cases of the value API (`aclrtValueWrite` / `aclrtValueWait`): its validation rows, the
//! four compare modes, and a wait released by another host thread.

use std::time::Duration;

use ascend_rt::raw_types::*;
use ascend_rt::Runtime;

use crate::helpers::*;
use crate::CaseResult;

pub(crate) fn value_api_validation(rt: &Runtime) -> CaseResult {
    let _d = Dev::open(rt);
    let f = rt.chip().features;
    let gate = |code| pick(f.task_value_wait, code, NOT_SUPPORTED);
    let buf = malloc(rt, 64);
    expect(
        "ValueWrite devAddr NULL",
        rt.value_write(Addr::NULL, 1, 0, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "ValueWait devAddr NULL",
        rt.value_wait(Addr::NULL, 1, 0, RawStream::NULL),
        INVALID_PARAM,
    );
    expect(
        "ValueWrite flag 1",
        rt.value_write(buf, 1, 1, RawStream::NULL),
        gate(RT_PARAM),
    );
    expect(
        "ValueWait flag 4",
        rt.value_wait(buf, 1, wait_flag::MAX, RawStream::NULL),
        gate(RT_PARAM),
    );
    let mut host = Addr::NULL;
    rt.malloc_host(Some(&mut host), 64)
        .expect("aclrtMallocHost");
    expect(
        "ValueWrite on host memory",
        rt.value_write(host, 1, 0, RawStream::NULL),
        gate(RT_PARAM),
    );
    expect(
        "ValueWait on host memory",
        rt.value_wait(host, 1, 0, RawStream::NULL),
        gate(RT_PARAM),
    );
    rt.free_host(host).expect("aclrtFreeHost");
    let s = stream(rt);
    rt.destroy_stream(s).expect("aclrtDestroyStream");
    expect(
        "ValueWrite on a destroyed stream",
        rt.value_write(buf, 1, 0, s),
        gate(BAD_HANDLE),
    );
    if f.task_value_wait {
        expect(
            "ValueWrite valid",
            rt.value_write(buf, 9, 0, RawStream::NULL),
            0,
        );
        rt.synchronize_stream(RawStream::NULL).expect("sync");
        assert_eq!(read_u64(rt, buf), 9, "the written value");
    }
    Ok(())
}

/// One compare mode: the initial word, the operand, and a value that releases the wait.
struct Mode {
    name: &'static str,
    flag: u32,
    satisfied: u64,
    unsatisfied: u64,
    operand: u64,
    release: u64,
}

const MODES: &[Mode] = &[
    Mode {
        name: "GEQ",
        flag: wait_flag::GEQ,
        satisfied: 5,
        unsatisfied: 3,
        operand: 5,
        release: 7,
    },
    Mode {
        name: "EQ",
        flag: wait_flag::EQ,
        satisfied: 9,
        unsatisfied: 1,
        operand: 9,
        release: 9,
    },
    Mode {
        name: "AND",
        flag: wait_flag::AND,
        satisfied: 0b0110,
        unsatisfied: 0b1000,
        operand: 0b0011,
        release: 0b0001,
    },
    Mode {
        name: "NOR",
        flag: wait_flag::NOR,
        satisfied: 0,
        unsatisfied: u64::MAX,
        operand: 0,
        release: 0,
    },
];

pub(crate) fn compare_modes(rt: &Runtime) -> CaseResult {
    if !rt.chip().features.task_value_wait {
        return Err(format!("{} has no stream value wait", rt.chip().soc_name));
    }
    let _d = Dev::open(rt);
    let word = malloc(rt, 8);
    let marker = malloc(rt, 8);
    let (a, b) = (stream(rt), stream(rt));
    for m in MODES {
        // Satisfied at once.
        write_u64(rt, word, m.satisfied);
        write_u64(rt, marker, 0);
        rt.value_wait(word, m.operand, m.flag, a)
            .expect("aclrtValueWait");
        rt.value_write(marker, 1, 0, a).expect("aclrtValueWrite");
        rt.synchronize_stream(a).expect("sync a");
        assert_eq!(read_u64(rt, marker), 1, "{}: satisfied wait passed", m.name);
        // Unsatisfied until another stream writes.
        write_u64(rt, word, m.unsatisfied);
        write_u64(rt, marker, 0);
        rt.value_wait(word, m.operand, m.flag, a)
            .expect("aclrtValueWait");
        rt.value_write(marker, 2, 0, a).expect("aclrtValueWrite");
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(
            query(rt, a),
            stream_status::NOT_READY,
            "{}: an unsatisfied wait holds its stream",
            m.name
        );
        assert_eq!(
            read_u64(rt, marker),
            0,
            "{}: nothing after the wait ran",
            m.name
        );
        rt.value_write(word, m.release, 0, b)
            .expect("aclrtValueWrite");
        rt.synchronize_stream(b).expect("sync b");
        rt.synchronize_stream(a).expect("sync a");
        assert_eq!(read_u64(rt, marker), 2, "{}: released by stream b", m.name);
        assert_eq!(query(rt, a), stream_status::COMPLETE, "{}", m.name);
    }
    rt.destroy_stream(a).expect("destroy");
    rt.destroy_stream(b).expect("destroy");
    Ok(())
}

pub(crate) fn wait_released_by_host_thread(rt: &Runtime) -> CaseResult {
    if !rt.chip().features.task_value_wait {
        return Err(format!("{} has no stream value wait", rt.chip().soc_name));
    }
    let _d = Dev::open(rt);
    let word = malloc(rt, 8);
    let marker = malloc(rt, 8);
    let a = stream(rt);
    rt.value_wait(word, 7, wait_flag::EQ, a)
        .expect("aclrtValueWait");
    rt.value_write(marker, 3, 0, a).expect("aclrtValueWrite");
    std::thread::scope(|sc| {
        let writer = sc.spawn(|| {
            rt.set_device(0)
                .expect("aclrtSetDevice on the writer thread");
            std::thread::sleep(Duration::from_millis(20));
            let mut s = RawStream::NULL;
            rt.create_stream(Some(&mut s)).expect("aclrtCreateStream");
            rt.value_write(word, 7, 0, s).expect("aclrtValueWrite");
            rt.synchronize_stream(s).expect("sync");
            rt.destroy_stream(s).expect("destroy");
            rt.reset_device(0)
                .expect("aclrtResetDevice on the writer thread");
        });
        rt.synchronize_stream(a)
            .expect("the wait is released by the other thread");
        writer.join().expect("writer thread");
    });
    assert_eq!(read_u64(rt, marker), 3, "the task after the wait ran");
    rt.destroy_stream(a).expect("destroy");
    Ok(())
}
