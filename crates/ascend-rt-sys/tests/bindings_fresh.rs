//! The committed bindings (`src/bindings.rs`) are what bindgen makes of the project's own
//! headers today.
//!
//! The check needs libclang, which bindgen loads at run time. Where it cannot be loaded the
//! test prints `SKIPPED: <reason>` and passes, so building and testing need only Rust and a C
//! compiler; `ASCEND_RT_SYS_REQUIRE_LIBCLANG=1` (set by CI's bindings step) makes that a
//! failure instead. With `CI=true` and libclang present, any failure to generate is a failure.

#[path = "../codegen/generate.rs"]
mod generate;

fn env_is(var: &str, values: &[&str]) -> bool {
    std::env::var(var).is_ok_and(|v| values.contains(&v.trim().to_ascii_lowercase().as_str()))
}

#[test]
fn committed_bindings_match_a_regeneration_from_the_project_headers() {
    let required = env_is("ASCEND_RT_SYS_REQUIRE_LIBCLANG", &["1", "true", "yes"]);
    let ci = env_is("CI", &["1", "true"]);
    if let Err(reason) = clang_sys::load() {
        assert!(
            !required,
            "ASCEND_RT_SYS_REQUIRE_LIBCLANG is set but libclang cannot be loaded: {reason}"
        );
        println!(
            "SKIPPED: libclang cannot be loaded, so the committed bindings are not compared \
             with a regeneration ({reason}); install libclang (e.g. `apt-get install \
             libclang-dev`) or set LIBCLANG_PATH to run this check"
        );
        return;
    }
    let headers = generate::Headers::own();
    let fresh = match generate::generate(&headers) {
        Ok(text) => text,
        // libclang loads but cannot parse the headers: usually clang's own headers
        // (`stddef.h`) are missing, an incomplete install rather than drift. The C ABI tests
        // compile these headers with the C compiler, so a broken header is caught there.
        Err(e) if !required && !ci => {
            println!(
                "SKIPPED: libclang loads but bindgen cannot process {} ({e}); install \
                 libclang-dev (clang's own headers) to run this check",
                headers.header().display()
            );
            return;
        }
        Err(e) => panic!("cannot regenerate the bindings: {e}"),
    };
    let committed = generate::committed().expect("read src/bindings.rs");
    if committed != fresh {
        let first = committed
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| committed.lines().count().min(fresh.lines().count()));
        let show = |text: &str| -> String {
            text.lines()
                .skip(first.saturating_sub(2))
                .take(6)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{} is stale: it differs from a regeneration from {} starting at line {}.\n\
             --- committed:\n{}\n--- regenerated:\n{}\n\
             Run `scripts/regen-bindings.sh` and commit the result.",
            generate::output_path().display(),
            headers.include.display(),
            first + 1,
            show(&committed),
            show(&fresh),
        );
    }
    println!(
        "the committed bindings match a regeneration from {}",
        headers.include.display()
    );
}
