//! Materialises predicted content from git blobs into a private temporary directory.
