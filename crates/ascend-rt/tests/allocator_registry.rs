//! The custom allocator registry: the rows of each call in the vendor's order, and that a
//! registration is a copy of the descriptor, per stream, which the runtime never calls.

mod common;

use ascend_rt::{AclResult, AllocatorField, AllocatorFields, MsgCode, Runtime};
use common::*;

/// The allocator registered for `stream`: its descriptor handle and the fields copied at
/// registration.
fn allocator_of(r: &Runtime, stream: u64) -> AclResult<(u64, AllocatorFields)> {
    let (mut desc, mut fields) = (0, AllocatorFields::default());
    r.allocator_get_by_stream(stream, Some(&mut desc), Some(&mut fields))
        .map(|()| (desc, fields))
}

#[test]
fn a_registration_copies_the_descriptor_and_is_handed_back_per_stream() {
    let r = rt(A2);
    let d = r.allocator_create_desc();
    assert_ne!(d, 0);
    for (f, v) in [
        (AllocatorField::Obj, 0x10),
        (AllocatorField::Alloc, 0x20),
        (AllocatorField::Free, 0x30),
        (AllocatorField::GetAddrFromBlock, 0x50),
    ] {
        ok(r.allocator_set(d, f, v));
    }
    // The stream is any non-NULL value: the registry does not check it.
    ok(r.allocator_register(0xabc, d));
    ok(r.allocator_set(d, AllocatorField::AllocAdvise, 0x40));
    let (desc, fields) = ok(allocator_of(&r, 0xabc));
    assert_eq!(desc, d);
    assert_eq!(
        (
            fields.obj,
            fields.alloc,
            fields.free,
            fields.alloc_advise,
            fields.get_addr_from_block
        ),
        (0x10, 0x20, 0x30, 0, 0x50),
        "the advise function set after registering is not in the registration"
    );
    ok(r.allocator_destroy_desc(d));
    ok(allocator_of(&r, 0xabc));
    ok(r.allocator_unregister(0xabc));
    ok(r.allocator_unregister(0xabc));
    assert_err(allocator_of(&r, 0xabc), 100000, Some(MsgCode::EH0012));
}

#[test]
fn allocator_calls_check_their_pointers_in_the_vendor_order() {
    let r = rt(A2);
    let d = r.allocator_create_desc();
    assert_err(r.allocator_destroy_desc(0), 100000, Some(MsgCode::EH0008));
    assert_err(
        r.allocator_set(0, AllocatorField::Obj, 1),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(
        r.allocator_set(d, AllocatorField::Free, 0),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(r.allocator_register(0, d), 100000, Some(MsgCode::EH0008));
    assert_err(r.allocator_register(1, 0), 100000, Some(MsgCode::EH0008));
    // Each required field in turn.
    assert_err(r.allocator_register(1, d), 100000, Some(MsgCode::EH0008));
    ok(r.allocator_set(d, AllocatorField::Obj, 1));
    assert_err(r.allocator_register(1, d), 100000, Some(MsgCode::EH0008));
    ok(r.allocator_set(d, AllocatorField::Alloc, 1));
    ok(r.allocator_set(d, AllocatorField::Free, 1));
    assert_err(r.allocator_register(1, d), 100000, Some(MsgCode::EH0008));
    ok(r.allocator_set(d, AllocatorField::GetAddrFromBlock, 1));
    ok(r.allocator_register(1, d));
    assert_err(
        r.allocator_get_by_stream(0, None, None),
        100000,
        Some(MsgCode::EH0008),
    );
    assert_err(allocator_of(&r, 0), 100000, Some(MsgCode::EH0008));
    assert_err(r.allocator_unregister(0), 100000, Some(MsgCode::EH0008));
    // A descriptor the runtime never gave out (the vendor's would use the pointer as is).
    assert_err(
        r.allocator_set(0xdead, AllocatorField::Obj, 1),
        100000,
        Some(MsgCode::EH0012),
    );
    ok(r.allocator_destroy_desc(d));
    assert_err(r.allocator_destroy_desc(d), 100000, Some(MsgCode::EH0012));
}
