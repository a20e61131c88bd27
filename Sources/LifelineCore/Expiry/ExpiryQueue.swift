/// The bookkeeping of an expiration watcher: elements keyed by their id, ordered by deadline, in an
/// indexed binary min-heap.
///
/// Adding, removing or moving one element costs O(log n); reading the earliest deadline costs O(1);
/// ``popDue(at:)`` costs O(k log n) for the k elements it returns; ``replaceAll(with:)`` costs O(n). So a
/// watcher that keeps one timer for ``earliestDeadline`` watches 100 000 elements for the price of one.
///
/// Elements with equal deadlines leave in the order they were added (or last moved). The queue reads no
/// clock: a deadline is a `Duration` since any origin the caller chooses (for a watcher, its clock's
/// reading when it started), and "now" is an argument.
///
/// ```swift
/// var queue = ExpiryQueue<Ticket>()
/// queue.insert(ticket, expiresAt: .seconds(30))
/// let wakeUp = queue.earliestDeadline            // arm one timer for this
/// let expired = queue.popDue(at: .seconds(31))   // when it fires
/// ```
///
/// Every member is inlinable, so that a queue of a caller's own element type is specialised in the
/// caller's module: used generically, each id lookup goes through the `Hashable` witness and costs some
/// ten times more.
public struct ExpiryQueue<Element: Identifiable> {
    /// A heap node: only concrete types, so that sifting moves plain values even where the queue is used
    /// generically; the element itself stays in its slot.
    @usableFromInline
    struct Node: Sendable {
        @usableFromInline var deadline: Duration
        /// Breaks ties between equal deadlines: first in, first out.
        @usableFromInline var sequence: UInt64
        @usableFromInline var slot: Int

        @inlinable
        init(deadline: Duration, sequence: UInt64, slot: Int) {
            self.deadline = deadline
            self.sequence = sequence
            self.slot = slot
        }

        @inlinable
        func precedes(_ other: Node) -> Bool {
            deadline < other.deadline || deadline == other.deadline && sequence < other.sequence
        }
    }

    @usableFromInline var heap: [Node] = []
    /// Each element's slot, by id: the only hashing per change.
    @usableFromInline var slots: [Element.ID: Int] = [:]
    /// The elements by slot; `nil` for a free slot.
    @usableFromInline var elements: [Element?] = []
    /// Each slot's node's index in `heap`.
    @usableFromInline var heapIndex: [Int] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var nextSequence: UInt64 = 0

    /// Creates an empty queue.
    @inlinable
    public init() {}

    /// Creates a queue holding `elements`; when an id appears more than once, its last entry counts.
    ///
    /// - Parameter elements: Elements and their deadlines, in any order. O(n).
    @inlinable
    public init(_ elements: some Sequence<(Element, Duration)>) {
        replaceAll(with: elements)
    }

    /// How many elements the queue holds.
    @inlinable
    public var count: Int { heap.count }

    /// Whether the queue holds no element.
    @inlinable
    public var isEmpty: Bool { heap.isEmpty }

    /// The element that expires first and its deadline, or `nil` when the queue is empty.
    @inlinable
    public var earliest: (element: Element, deadline: Duration)? {
        heap.first.map { (element(in: $0.slot), $0.deadline) }
    }

    /// The earliest deadline, or `nil` when the queue is empty: the one moment a watcher must wake up.
    @inlinable
    public var earliestDeadline: Duration? { heap.first?.deadline }

    /// Whether an element with this id is in the queue.
    @inlinable
    public func contains(_ id: Element.ID) -> Bool { slots[id] != nil }

    /// The deadline of the element with this id, or `nil` when it is not in the queue.
    @inlinable
    public func deadline(of id: Element.ID) -> Duration? { slots[id].map { heap[heapIndex[$0]].deadline } }

    /// Every element and its deadline, in no particular order.
    @inlinable
    public var unordered: [(element: Element, deadline: Duration)] {
        heap.map { (element(in: $0.slot), $0.deadline) }
    }

    /// Adds an element, or replaces the element with the same id and moves it to the new deadline.
    ///
    /// - Parameters:
    ///   - element: The element; its `id` keys it.
    ///   - deadline: When it expires.
    /// - Returns: The deadline the element had before, when it was already in the queue.
    @inlinable
    @discardableResult
    public mutating func insert(_ element: Element, expiresAt deadline: Duration) -> Duration? {
        let sequence = takeSequence()
        // One hash for a new element: the slot it would take is stored at once, and put back when the id
        // already had one.
        let candidate = freeSlots.last ?? elements.count
        if let slot = slots.updateValue(candidate, forKey: element.id) {
            slots[element.id] = slot
            elements[slot] = element
            let index = heapIndex[slot]
            let previous = heap[index].deadline
            heap[index].deadline = deadline
            heap[index].sequence = sequence
            restore(at: index)
            return previous
        }
        let slot = allocate(element)
        assert(slot == candidate, "ExpiryQueue: allocated slot \(slot), expected \(candidate)")
        heap.append(Node(deadline: deadline, sequence: sequence, slot: slot))
        heapIndex[slot] = heap.count - 1
        siftUp(from: heap.count - 1)
        return nil
    }

    /// Removes the element with this id.
    ///
    /// - Returns: The removed element and its deadline, or `nil` when it was not in the queue.
    @inlinable
    @discardableResult
    public mutating func remove(_ id: Element.ID) -> (element: Element, deadline: Duration)? {
        guard let slot = slots.removeValue(forKey: id) else { return nil }
        let node = removeNode(at: heapIndex[slot])
        return (release(slot), node.deadline)
    }

    /// Removes every element.
    @inlinable
    public mutating func removeAll() {
        heap.removeAll(keepingCapacity: true)
        slots.removeAll(keepingCapacity: true)
        elements.removeAll(keepingCapacity: true)
        heapIndex.removeAll(keepingCapacity: true)
        freeSlots.removeAll(keepingCapacity: true)
    }

    /// Replaces the whole content with `elements`; when an id appears more than once, its last entry
    /// counts. O(n): the heap is built bottom-up, not by n insertions.
    ///
    /// - Parameter elements: Elements and their deadlines, in any order.
    @inlinable
    public mutating func replaceAll(with elements: some Sequence<(Element, Duration)>) {
        removeAll()
        let expected = elements.underestimatedCount
        if expected > heap.capacity {
            heap.reserveCapacity(expected)
            slots.reserveCapacity(expected)
            self.elements.reserveCapacity(expected)
            heapIndex.reserveCapacity(expected)
        }
        for (element, deadline) in elements {
            let sequence = takeSequence()
            // Nothing is released while the queue fills, so the next slot is always the next index.
            let candidate = self.elements.count
            if let slot = slots.updateValue(candidate, forKey: element.id) {
                slots[element.id] = slot
                self.elements[slot] = element
                heap[heapIndex[slot]] = Node(deadline: deadline, sequence: sequence, slot: slot)
            } else {
                self.elements.append(element)
                heapIndex.append(heap.count)
                heap.append(Node(deadline: deadline, sequence: sequence, slot: candidate))
            }
        }
        guard heap.count > 1 else { return }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) {
            siftDown(from: index)
        }
    }

    /// Removes and returns every element whose deadline is at or before `time`, earliest first.
    ///
    /// - Parameter time: Now, on the deadlines' timeline.
    /// - Returns: The expired elements, in deadline order (ties in the order they were added); empty when
    ///   nothing is due yet.
    @inlinable
    public mutating func popDue(at time: Duration) -> [Element] {
        var due: [Element] = []
        while let first = heap.first, first.deadline <= time {
            removeNode(at: 0)
            let element = release(first.slot)
            slots[element.id] = nil
            due.append(element)
        }
        return due
    }

    // MARK: - Slots

    @inlinable
    mutating func takeSequence() -> UInt64 {
        defer { nextSequence &+= 1 }
        return nextSequence
    }

    @inlinable
    func element(in slot: Int) -> Element {
        guard let element = elements[slot] else {
            preconditionFailure("ExpiryQueue: the heap names slot \(slot), which holds no element")
        }
        return element
    }

    @inlinable
    mutating func allocate(_ element: Element) -> Int {
        if let slot = freeSlots.popLast() {
            elements[slot] = element
            return slot
        }
        elements.append(element)
        heapIndex.append(0)
        return elements.count - 1
    }

    @inlinable
    mutating func release(_ slot: Int) -> Element {
        let element = element(in: slot)
        elements[slot] = nil
        freeSlots.append(slot)
        return element
    }

    // MARK: - The heap

    @inlinable
    @discardableResult
    mutating func removeNode(at index: Int) -> Node {
        let removed = heap[index]
        let last = heap.removeLast()
        if index < heap.count {
            heap[index] = last
            heapIndex[last.slot] = index
            restore(at: index)
        }
        return removed
    }

    /// Moves the node at `index` up or down until the heap property holds again.
    @inlinable
    mutating func restore(at index: Int) {
        if index > 0 && heap[index].precedes(heap[(index - 1) / 2]) {
            siftUp(from: index)
        } else {
            siftDown(from: index)
        }
    }

    @inlinable
    mutating func siftUp(from start: Int) {
        let node = heap[start]
        var index = start
        while index > 0 {
            let parent = (index - 1) / 2
            guard node.precedes(heap[parent]) else { break }
            heap[index] = heap[parent]
            heapIndex[heap[index].slot] = index
            index = parent
        }
        heap[index] = node
        heapIndex[node.slot] = index
    }

    @inlinable
    mutating func siftDown(from start: Int) {
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
            heapIndex[heap[index].slot] = index
            index = child
        }
        heap[index] = node
        heapIndex[node.slot] = index
    }
}

extension ExpiryQueue: Sendable where Element: Sendable, Element.ID: Sendable {}
