public import Lifeline
public import LifelineCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The session's pending operations (`GET /operations`) as an `OperationSource` for an
/// `OperationList`.
///
/// `GET /operations` and the `OperationFinished` event are Lifeline's own extension, served by its
/// reference server (`lifeline serve`): stoatchat has no operations API, and `api.stoat.chat` answers
/// `404`. Against real Stoat, watch ``StoatClient/restrictions``, the deadlines it does send.
///
/// Each fetch reports the operations with their `expires_at` on the server's clock, the response's `Date`
/// header (whole seconds) as the server's time, and the round trip ``StoatAPI`` measured; the list anchors
/// the expiries to its monotonic clock when the answer arrives.
///
/// ```swift
/// let list = OperationList(source: StoatOperationSource(api: client.api, credentials: credentials))
/// Task { await list.run() }
/// Task { await list.follow(client) }   // pushes, and every reconnect
/// ```
public struct StoatOperationSource: OperationSource {
    /// The REST client.
    public let api: StoatAPI
    /// The session whose operations are listed.
    public let credentials: SessionCredentials

    /// Creates a source.
    ///
    /// - Parameters:
    ///   - api: The REST client.
    ///   - credentials: The session whose operations to list.
    public init(api: StoatAPI, credentials: SessionCredentials) {
        self.api = api
        self.credentials = credentials
    }

    /// Fetches `GET /operations`.
    ///
    /// - Throws: ``StoatAPIError``.
    public func fetchOperations() async throws -> OperationListing<OperationsPage.Operation> {
        let page = try await api.operations(credentials)
        return OperationListing(
            page.operations.map { .init($0, expires: WallClockTime($0.expiresAt)) },
            serverTime: page.serverDate.map(WallClockTime.init), serverTimeResolution: .seconds(1),
            roundTrip: page.roundTrip)
    }
}

extension OperationList where Operation == OperationsPage.Operation {
    /// Keeps the list current with a client's socket: refreshes it on every `OperationFinished`, and each
    /// time the session reaches CONNECTED (when this starts with the session already connected, at once),
    /// until the client's events end or the calling task is cancelled.
    ///
    /// A push sent while the socket was down is never heard, so what happened meanwhile is fetched when it
    /// comes back; the pushes are observed from the moment this is called, so none falls between the
    /// two. Prefer it to ``refreshOnOperationFinished(_:)``, which hears only the pushes.
    ///
    /// - Parameter client: The client whose session lists the operations.
    public nonisolated func follow(_ client: StoatClient) async {
        // Observing the pushes before the session's moments, and those before its state: a push is either heard
        // or before a refresh, and a CONNECTED is either the present one or a moment to come.
        var pushes = client.events.makeAsyncIterator()
        let lifecycle = client.lifecycle.subscribe()
        if client.session.snapshot.state == .connected { refresh() }
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await case .connected in lifecycle { self.refresh() }
            }
            while !Task.isCancelled {
                do {
                    while let event = try await pushes.next() {
                        if case .operationFinished(let id, _) = event { operationFinished(id) }
                    }
                    break
                } catch {
                    // The observer fell behind and may have missed an OperationFinished: refresh, observe again.
                    pushes = client.events.makeAsyncIterator()
                    refresh()
                }
            }
            group.cancelAll()
        }
    }

    /// Refreshes the list on every `OperationFinished` in `events` (the events socket's, for instance
    /// ``StoatClient/events``), until the sequence ends or the calling task is cancelled.
    ///
    /// An observer that falls too far behind (``StoatClientErrorCode/observerTooSlow``) may have missed a
    /// push: the list is refreshed and the events observed again.
    ///
    /// - Parameter events: The socket's events; everything but `OperationFinished` is ignored.
    public nonisolated func refreshOnOperationFinished(_ events: StoatEvents) async {
        while !Task.isCancelled {
            do {
                for try await event in events {
                    if case .operationFinished(let id, _) = event { operationFinished(id) }
                }
                return
            } catch {
                // The observer fell behind and may have missed an OperationFinished: refresh, observe again.
                refresh()
            }
        }
    }
}

extension WallClockTime {
    /// The time of a `Date`.
    init(_ date: Date) {
        self.init(secondsSince1970: date.timeIntervalSince1970)
    }
}
