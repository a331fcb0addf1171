// Module NetCore: the Swift concurrency API (async `send`, `decode`, `call` and
// `batch`, `client.executor`, the `bytes(for:)` and `responses(for:)` streams, the
// async token refresher) on top of NetCoreBase, the core the C library is built
// on, which never links Swift concurrency (ARCHITECTURE.md, docs/size.md).
// Re-exported: `import NetCore` gives the whole API, as before the split.
@_exported import NetCoreBase
