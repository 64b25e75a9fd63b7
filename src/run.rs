//! run stage (being written).
