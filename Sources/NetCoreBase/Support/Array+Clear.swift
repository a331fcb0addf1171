extension Array {
    /// Empties the array and keeps its buffer for the next pass of a loop.
    ///
    /// Why not `removeAll(keepingCapacity: true)`: that calls the generic
    /// `replaceSubrange(_:with: EmptyCollection())`, about 1 KB of code, which the
    /// transfer loop ran two or three times a pass: instruction-cache misses and
    /// instructions paid on every request (bench/RESULTS.md, "Figures that justified
    /// code choices"). A `popLast` loop is a few inlined
    /// instructions per element, and an empty array (`cancelled` on almost every
    /// pass) costs one compare. The order elements are released in does not matter
    /// to the loop's arrays. Also used by the loop executor's job list (module NetCore):
    /// `@inlinable`, so that module gets it specialized too (across modules a plain
    /// generic function runs unspecialized: witness-table calls and metadata
    /// look-ups for `popLast`, about 1 % of the executor path's CPU).
    @inlinable @inline(__always)
    package mutating func clearKeepingBuffer() {
        while popLast() != nil {}
    }
}
