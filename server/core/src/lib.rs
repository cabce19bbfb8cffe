//! Pure analysis core.
