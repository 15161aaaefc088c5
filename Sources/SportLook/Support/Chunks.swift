extension Array {
    /// The array in consecutive pieces of at most `size` elements (a statement, or a
    /// group of tasks, for each).
    func chunks(of size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: size).map { self[$0..<Swift.min(count, $0 + size)] }
    }
}
