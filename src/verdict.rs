//! verdict stage (being written).
