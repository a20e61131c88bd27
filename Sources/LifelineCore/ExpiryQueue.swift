/// The bookkeeping of an expiration watcher: elements keyed by their id, ordered by deadline, in an
/// indexed binary min-heap.
///
/// Adding, removing or moving one element costs O(log n); reading the earliest deadline costs O(1);
/// ``popDue(at:)`` costs O(k log n) for the k elements it returns; ``replaceAll(with:)`` costs O(n). So a
/// watcher that keeps one timer for ``earliestDeadline`` watches 100 000 elements for the price of one.
///
/// Elements with equal deadlines leave in the order they were added (or last moved). The queue reads no
/// clock: deadlines are values of any `Comparable` type, and "now" is an argument.
///
/// ```swift
/// var queue = ExpiryQueue<Ticket, Duration>()
/// queue.insert(ticket, expiresAt: .seconds(30))
/// let wakeUp = queue.earliestDeadline          // arm one timer for this
/// let expired = queue.popDue(at: .seconds(31))   // when it fires
/// ```
public struct ExpiryQueue<Element: Identifiable, Deadline: Comparable> {
    fileprivate struct Node {
        var element: Element
        var deadline: Deadline
        /// Breaks ties between equal deadlines: first in, first out.
        var sequence: UInt64

        func precedes(_ other: Node) -> Bool {
            deadline < other.deadline || !(other.deadline < deadline) && sequence < other.sequence
        }
    }

    private var heap: [Node] = []
    private var positions: [Element.ID: Int] = [:]
    private var nextSequence: UInt64 = 0

    /// Creates an empty queue.
    public init() {}

    /// Creates a queue holding `elements`; when an id appears more than once, its last entry counts.
    ///
    /// - Parameter elements: Elements and their deadlines, in any order. O(n).
    public init(_ elements: some Sequence<(Element, Deadline)>) {
        replaceAll(with: elements)
    }

    /// How many elements the queue holds.
    public var count: Int { heap.count }

    /// Whether the queue holds no element.
    public var isEmpty: Bool { heap.isEmpty }

    /// The element that expires first and its deadline, or `nil` when the queue is empty.
    public var earliest: (element: Element, deadline: Deadline)? {
        heap.first.map { ($0.element, $0.deadline) }
    }

    /// The earliest deadline, or `nil` when the queue is empty: the one moment a watcher must wake up.
    public var earliestDeadline: Deadline? { heap.first?.deadline }

    /// Whether an element with this id is in the queue.
    public func contains(_ id: Element.ID) -> Bool { positions[id] != nil }

    /// The deadline of the element with this id, or `nil` when it is not in the queue.
    public func deadline(of id: Element.ID) -> Deadline? { positions[id].map { heap[$0].deadline } }

    /// Every element and its deadline, in no particular order.
    public var unordered: [(element: Element, deadline: Deadline)] { heap.map { ($0.element, $0.deadline) } }

    /// Adds an element, or replaces the element with the same id and moves it to the new deadline.
    ///
    /// - Parameters:
    ///   - element: The element; its `id` keys it.
    ///   - deadline: When it expires.
    /// - Returns: The deadline the element had before, when it was already in the queue.
    @discardableResult
    public mutating func insert(_ element: Element, expiresAt deadline: Deadline) -> Deadline? {
        let node = Node(element: element, deadline: deadline, sequence: takeSequence())
        if let index = positions[element.id] {
            let previous = heap[index].deadline
            heap[index] = node
            restore(at: index)
            return previous
        }
        heap.append(node)
        positions[element.id] = heap.count - 1
        siftUp(from: heap.count - 1)
        return nil
    }

    /// Removes the element with this id.
    ///
    /// - Returns: The removed element and its deadline, or `nil` when it was not in the queue.
    @discardableResult
    public mutating func remove(_ id: Element.ID) -> (element: Element, deadline: Deadline)? {
        guard let index = positions.removeValue(forKey: id) else { return nil }
        let removed = heap[index]
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            positions[last.element.id] = index
            restore(at: index)
        }
        return (removed.element, removed.deadline)
    }

    /// Removes every element.
    public mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
        positions.removeAll(keepingCapacity: true)
    }

    /// Replaces the whole content with `elements`; when an id appears more than once, its last entry
    /// counts. O(n): the heap is built bottom-up, not by n insertions.
    ///
    /// - Parameter elements: Elements and their deadlines, in any order.
    public mutating func replaceAll(with elements: some Sequence<(Element, Deadline)>) {
        removeAll()
        for (element, deadline) in elements {
            let node = Node(element: element, deadline: deadline, sequence: takeSequence())
            if let index = positions[element.id] {
                heap[index] = node
            } else {
                positions[element.id] = heap.count
                heap.append(node)
            }
        }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    /// Removes and returns every element whose deadline is at or before `time`, earliest first.
    ///
    /// - Parameter time: Now, on the deadlines' clock.
    /// - Returns: The expired elements, in deadline order (ties in the order they were added); empty when
    ///   nothing is due yet.
    public mutating func popDue(at time: Deadline) -> [Element] {
        var due: [Element] = []
        while let first = heap.first, !(time < first.deadline) {
            due.append(first.element)
            remove(first.element.id)
        }
        return due
    }

    // MARK: - The heap

    private mutating func takeSequence() -> UInt64 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    /// Moves the node at `index` up or down until the heap property holds again.
    private mutating func restore(at index: Int) {
        if index > 0 && heap[index].precedes(heap[(index - 1) / 2]) {
            siftUp(from: index)
        } else {
            siftDown(from: index)
        }
    }

    private mutating func siftUp(from start: Int) {
        let node = heap[start]
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard node.precedes(heap[parent]) else { break }
            heap[index] = heap[parent]
            positions[heap[index].element.id] = index
            index = parent
        }
        heap[index] = node
        positions[node.element.id] = index
    }

    private mutating func siftDown(from start: Int) {
        let node = heap[start]
        let count = heap.count
        var index = start
        while true {
            let left = 2 * index + 1
            guard left < count else { break }
            let right = left + 1
            let child = right < count && heap[right].precedes(heap[left]) ? right : left
            guard heap[child].precedes(node) else { break }
            heap[index] = heap[child]
            positions[heap[index].element.id] = index
            index = child
        }
        heap[index] = node
        positions[node.element.id] = index
    }
}

extension ExpiryQueue: Sendable where Element: Sendable, Element.ID: Sendable, Deadline: Sendable {}

extension ExpiryQueue.Node: Sendable where Element: Sendable, Deadline: Sendable {}
