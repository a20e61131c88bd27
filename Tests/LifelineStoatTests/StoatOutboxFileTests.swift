import Foundation
import Lifeline
import LifelineCore
import LifelineStore
import LifelineTesting
import StoatReferenceServer
import Testing

@testable import LifelineStoat
@testable import LifelineStoatStore

/// Sends with files through the outbox, against the reference server's file server: each file uploaded as a
/// step of the send, the message posted once with the ids, whatever the network, a restart or the disk does.
@Suite("Files through the outbox, against the reference server", .hangBound)
struct StoatOutboxFileTests {
    static func bytes(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    /// A connected client of a fresh account signed in to the harness's store.
    static func signedIn(
        _ harness: OutboxHarness, email: String, password: String
    ) async throws -> (StoatClient, SnapshotRecorder) {
        let member = try await harness.server.addAccount(email: email, password: password, username: "filer")
        try await harness.server.join(userID: member.userID, serverID: harness.server.lobbyServerID)
        let (client, recorder) = harness.client()
        _ = try #require(await client.signIn(to: harness.stores.store, email: email, password: password).database)
        await recorder.next(.connected)
        return (client, recorder)
    }

    /// The outbox's entries of `nonce` as announced, until one is `sent` or `failed`.
    static func announcements(
        of nonce: String, in events: AsyncStream<OutboxEvent>, from first: OutboxEntry? = nil
    ) async -> [OutboxEntry] {
        var seen: [OutboxEntry] = first.map { [$0] } ?? []
        for await event in events {
            guard case .changed(let entry) = event, entry.nonce == nonce else { continue }
            seen.append(entry)
            switch entry.state {
            case .sent, .failed: return seen
            case .queued, .sending: continue
            }
        }
        return seen
    }

    @Test(
        "a file whose upload answer is lost is uploaded again; the message is posted once with its id, progress rising to the total"
    )
    func lostUploadAnswer() async throws {
        let harness = try await OutboxHarness()
        let (client, _) = try await Self.signedIn(harness, email: "lost@example.com", password: "lost password 1")
        let directory = try TemporaryDirectory()
        let contents = Self.bytes(600_000)
        let path = try directory.file("the plan.bin", contents)
        let general = harness.server.lobbyChannelID
        await harness.server.loseNextUploadAnswers(1)
        let events = client.outboxEvents

        let entry = try await client.send(
            OutgoingMessage(content: "with a file"), files: [OutgoingFile(path: path)], to: general)
        #expect(entry.files.map(\.filename) == ["the plan.bin"])
        #expect(entry.files.first?.size == Int64(contents.count))
        let seen = await Self.announcements(of: entry.nonce, in: events)
        guard case .sent(let id)? = seen.last?.state else {
            Issue.record("not sent: \(seen.map(\.state))")
            return
        }
        let counters = await harness.server.socketCounters()
        #expect(counters.lostUploadAnswers == 1)
        #expect(counters.uploadsStored == 2, "the lost one and its repeat")
        let progress = seen.compactMap(\.progress)
        #expect(progress.allSatisfy { $0.total == Int64(contents.count) && $0.sent <= $0.total })
        #expect(progress.contains { $0.sent == $0.total }, "\(progress)")
        #expect(seen.contains { $0.files.first?.uploadedID != nil })

        let messages = try await harness.messages(in: general, content: "with a file")
        #expect(messages.count == 1)
        #expect(messages.first?.id == id)
        let file = try #require(messages.first?.attachments?.first)
        #expect(messages.first?.attachments?.count == 1)
        #expect(file.filename == "the plan.bin")
        #expect(await harness.server.fileContents(id: file.id) == Data(contents))
        await harness.stop()
    }

    @Test(
        "a restart mid-upload: the store reopened uploads the interrupted file again, not the one already uploaded, and posts once"
    )
    func restartMidUpload() async throws {
        let harness = try await OutboxHarness()
        let email = "restart-files@example.com"
        let password = "restart password 1"
        let (first, _) = try await Self.signedIn(harness, email: email, password: password)
        let directory = try TemporaryDirectory()
        let small = Self.bytes(1000, seed: 1)
        let large = Self.bytes(3_000_000, seed: 2)
        let smallPath = try directory.file("small.txt", small)
        let largePath = try directory.file("large file.bin", large)
        let general = harness.server.lobbyChannelID
        // A slow link: the large file is still on its way when the client stops.
        await harness.server.setUploadRate(100_000)
        let events = first.outboxEvents
        let entry = try await first.send(
            OutgoingMessage(content: "two files"),
            files: [OutgoingFile(path: smallPath), OutgoingFile(path: largePath)], to: general)
        var midway: OutboxEntry?
        for await event in events {
            guard case .changed(let changed) = event, changed.nonce == entry.nonce else { continue }
            if changed.files.first?.uploadedID != nil, let progress = changed.progress,
                progress.sent > Int64(small.count)
            {
                midway = changed
                break
            }
        }
        let uploadedFirst = try #require(midway?.files.first?.uploadedID)
        #expect(midway?.state == .sending)
        await harness.stopClients()
        #expect(await harness.server.socketCounters().uploadsStored == 1, "the large file never arrived whole")
        await harness.server.setUploadRate(nil)

        let (second, _) = harness.client()
        let restoredEvents = second.outboxEvents
        let accounts = try harness.stores.store.accounts()
        _ = await second.signIn(to: harness.stores.store, account: accounts[0].id, password: password)
        let seen = await Self.announcements(of: entry.nonce, in: restoredEvents)
        #expect(seen.first?.files.first?.uploadedID == uploadedFirst, "the stored id came back with the entry")
        guard case .sent? = seen.last?.state else {
            Issue.record("not sent after the restart: \(seen.map(\.state))")
            return
        }
        // The small file was stored once (the message carries its first id, below); the large one once more —
        // its interrupted upload may still have reached the server whole from the socket's buffers, an orphan.
        let stored = await harness.server.socketCounters().uploadsStored
        #expect(stored == 2 || stored == 3, "\(stored)")
        let messages = try await harness.messages(in: general, content: "two files")
        #expect(messages.count == 1)
        let attachments = try #require(messages.first?.attachments)
        #expect(attachments.map(\.id).first == uploadedFirst)
        #expect(attachments.map(\.filename) == ["small.txt", "large file.bin"])
        #expect(await harness.server.fileContents(id: attachments[1].id) == Data(large))
        await harness.stop()
    }

    @Test("a file over the server's limit fails the entry FileTooLarge with the limit, nothing sent, no message")
    func tooLarge() async throws {
        let harness = try await OutboxHarness()
        let (client, _) = try await Self.signedIn(harness, email: "large@example.com", password: "large password 1")
        await harness.server.setUploadLimit(tag: "attachments", bytes: 1000)
        let directory = try TemporaryDirectory()
        let path = try directory.file("big.bin", Self.bytes(1001))
        let general = harness.server.lobbyChannelID
        let entry = try await client.send(
            OutgoingMessage(content: "too big"), files: [OutgoingFile(path: path)], to: general)
        guard case .failed(let failure)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .api(.fileTooLarge))
        #expect(failure.message.contains("1000"), "\(failure.message)")
        #expect(await harness.server.socketCounters().uploadBytesReceived == 0)
        #expect(try await harness.messages(in: general, content: "too big").isEmpty)
        await harness.stop()
    }

    @Test("a file changed on disk after it was queued fails the entry fileChanged: its new bytes are never sent")
    func changedFile() async throws {
        let harness = try await OutboxHarness()
        let (client, recorder) = try await Self.signedIn(
            harness, email: "changed@example.com", password: "changed password 1")
        let directory = try TemporaryDirectory()
        let path = try directory.file("notes.txt", Array("first version".utf8))
        let general = harness.server.lobbyChannelID
        // Queued while offline, changed before it could go.
        harness.network.set(.offline)
        await recorder.next { $0.network == .offline }
        _ = await harness.server.dropAllSockets()
        await recorder.next(.offline)
        let entry = try await client.send(
            OutgoingMessage(content: "my notes"), files: [OutgoingFile(path: path)], to: general)
        #expect(entry.state == .queued(retryAfter: nil))
        try Data("second version".utf8).write(to: URL(fileURLWithPath: path))
        harness.network.set(.online)
        guard case .failed(let failure)? = await client.delivery(of: entry.nonce) else {
            Issue.record("not failed")
            return
        }
        #expect(failure.code == .fileChanged)
        #expect(failure.message.contains("notes.txt"))
        #expect(await harness.server.socketCounters().uploadsStored == 0)
        #expect(try await harness.messages(in: general, content: "my notes").isEmpty)
        await harness.stop()
    }

    @Test("a file that cannot be read is refused when queued: nothing is queued")
    func unreadableAtQueue() async throws {
        let harness = try await OutboxHarness()
        let (client, _) = harness.client()
        do {
            _ = try await client.send(
                OutgoingMessage(content: "x"), files: [OutgoingFile(path: "/nonexistent/lifeline/file")],
                to: harness.server.lobbyChannelID)
            Issue.record("a missing file was queued")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        #expect(client.outbox.isEmpty)
        await harness.stop()
    }
}

/// The outbox's stored formats: what each release wrote is read back, a later format is skipped, never misread.
@Suite("The outbox's record formats")
struct OutboxRecordFormatTests {
    static func decode(_ json: String) throws -> Outbox.Record {
        try JSONDecoder().decode(Outbox.Record.self, from: Data(json.utf8))
    }

    @Test("formats 1 and 2 as the previous release wrote them are read; format 3 lists its files; others are skipped")
    func formats() throws {
        // Exactly the JSON the previous release wrote: a send (format 1) and an action (format 2).
        let send = try Self.decode(
            #"{"version":1,"nonce":"n1","channel":"C","content":"hi","position":1,"attempt":1,"posted":false,"#
                + #""floor":"00000000000000000000000000"}"#)
        let action = try Self.decode(
            #"{"version":2,"nonce":"n2","kind":"edit","target":"M","channel":"C","content":"new","position":2,"#
                + #""attempt":1,"posted":false,"floor":""}"#)
        #expect(AccountDatabaseOutbox.reads(send))
        #expect(AccountDatabaseOutbox.reads(action))
        #expect(send.message.attachments == nil)

        var outbox = Outbox()
        let file = Outbox.Record.StoredFile(path: "/tmp/a b", filename: "a b", size: 3, sha256: "ab", id: nil)
        var record = outbox.makeRecord(
            nonce: "n3", channel: "C", message: OutgoingMessage(content: "f", attachments: ["OLD"]), floor: "",
            files: [file])
        #expect(record.version == 3)
        let decoded = try JSONDecoder().decode(Outbox.Record.self, from: JSONEncoder().encode(record))
        #expect(decoded == record)
        #expect(AccountDatabaseOutbox.reads(decoded))
        #expect(record.message.attachments == ["OLD"], "an id joins only once uploaded")
        record.files?[0].id = "NEW"
        #expect(record.message.attachments == ["OLD", "NEW"])
        #expect(
            outbox.makeRecord(nonce: "n4", channel: "C", message: OutgoingMessage(content: "plain"), floor: "").version
                == 1)

        var later = record
        later.version = 4
        #expect(!AccountDatabaseOutbox.reads(later))
        var filesInFormat1 = record
        filesInFormat1.version = 1
        #expect(!AccountDatabaseOutbox.reads(filesInFormat1), "a release before files would drop them")
    }

    @Test("progress counts the bytes of the files, an uploaded one whole, and is not announced twice the same")
    func progress() {
        var outbox = Outbox()
        let files = [
            Outbox.Record.StoredFile(path: "/a", filename: "a", size: 100, sha256: "x", id: nil),
            Outbox.Record.StoredFile(path: "/b", filename: "b", size: 300, sha256: "y", id: nil),
        ]
        let record = outbox.makeRecord(
            nonce: "n", channel: "C", message: OutgoingMessage(content: "two"), floor: "", files: files)
        _ = outbox.enqueue(record, now: .zero)
        let started = outbox.sessionChanged(connected: 1, mayPost: true, now: .zero)
        #expect(started.contains { if case .upload(_, file: 0) = $0 { true } else { false } })
        let half = outbox.uploadProgressed("n", file: 0, progress: .init(sent: 60, total: 120))
        #expect(half.compactMap(\.announced).first?.progress == .init(sent: 50, total: 400))
        #expect(outbox.uploadProgressed("n", file: 0, progress: .init(sent: 60, total: 120)).isEmpty)
        let next = outbox.uploaded("n", file: 0, outcome: .stored("ID-A"), now: .zero)
        #expect(next.contains { if case .persist(let stored) = $0 { stored.files?[0].id == "ID-A" } else { false } })
        #expect(next.contains { if case .upload(_, file: 1) = $0 { true } else { false } })
        let second = outbox.uploadProgressed("n", file: 1, progress: .init(sent: 150, total: 150))
        #expect(second.compactMap(\.announced).first?.progress == .init(sent: 400, total: 400))
        let posting = outbox.uploaded("n", file: 1, outcome: .stored("ID-B"), now: .zero)
        let post = posting.compactMap { if case .post(let record, _) = $0 { record } else { nil } }.first
        #expect(post?.message.attachments == ["ID-A", "ID-B"])
        #expect(outbox.publicEntries.first?.progress == nil)
    }
}
