//! Warnings a user must see: said through `tracing` when the program has a subscriber (a
//! logger), else on standard error, so that a hazard, a stalled device or discarded work is
//! never silent in a program that set up no logging.

/// True when the calling thread has a `tracing` subscriber to say warnings to (its own, or
/// the program's global one).
pub fn has_logger() -> bool {
    tracing::dispatcher::get_default(|d| !d.is::<tracing::subscriber::NoSubscriber>())
}

/// Says a warning the user must see: `tracing::warn!` with these arguments where the program
/// has a logger ([`has_logger`]), else a line on standard error headed by the calling crate's
/// name.
///
/// ```
/// ascend_types::warn_user!("stream {} destroyed by force", 3);
/// ```
#[macro_export]
macro_rules! warn_user {
    ($($arg:tt)+) => {
        if $crate::warning::has_logger() {
            ::tracing::warn!($($arg)+);
        } else {
            ::std::eprintln!("{}: warning: {}", ::std::env!("CARGO_PKG_NAME"), ::std::format_args!($($arg)+));
        }
    };
}
