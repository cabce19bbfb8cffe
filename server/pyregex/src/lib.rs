//! CPython 3.11 `re` compatible pattern parsing and matching.
