import _StratusTestSupport
import Foundation
import Stratus
import XCTest

/// A seeded simulation of several devices of one account, each an engine with its own contacts
/// store and a delegate written as Apple's sample writes it. The devices make random creates,
/// edits and deletes, now and then one deletes the zone and its local data ("delete server
/// data"), and transient faults hit random requests; the devices send and fetch in random
/// order, swallowing errors as an app does. After a few quiet rounds every device's store must
/// equal the server's records.
///
/// `STRATUS_STRESS_SCALE` runs more seeds; `STRATUS_SYNC_SIMULATION_SEED` replays one seed.
final class SyncEngineSimulationTests: SyncEngineTestCase {
    private static let deviceCount = 3
    private static let rounds = 40
    private static let contactPool = 12
    private static let transientCodes: [CKError.Code] = [.networkFailure, .networkUnavailable, .serviceUnavailable, .zoneBusy, .requestRateLimited]

    private let zoneID = CKRecordZone.ID(zoneName: "Contacts")

    func testDevicesOfOneAccountEndEqualToTheServerAfterRandomEditsZoneResetsAndFaults() async throws {
        let seeds: [UInt64]
        if let replay = ProcessInfo.processInfo.environment["STRATUS_SYNC_SIMULATION_SEED"].flatMap({ UInt64($0) }) {
            seeds = [replay]
        } else {
            seeds = (0..<UInt64(3 * stressScale)).map { 0x5EED_C0DE &+ $0 }
        }
        for (run, seed) in seeds.enumerated() {
            try await simulate(seed: seed, account: "sim\(run)")
        }
    }

    // MARK: The simulation

    private struct Device {
        let name: String
        let container: CKContainer
        let store: ContactStore
        let engine: CKSyncEngine
    }

    private func simulate(seed: UInt64, account: String) async throws {
        var random = SeededGenerator(seed: seed)
        var trace: [String] = []
        let devices = (0..<Self.deviceCount).map { index -> Device in
            let store = ContactStore(zoneID: zoneID)
            store.clientWins = Bool.random(using: &random)
            let made = device(account, store: store)
            return Device(name: "d\(index)", container: made.container, store: made.store, engine: made.engine)
        }
        var edits = 0

        for round in 0..<Self.rounds {
            for index in devices.indices.shuffled(using: &random) {
                let device = devices[index]
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let existing = device.store.contacts.keys.map(\.recordName).sorted()
                    if !existing.isEmpty, Int.random(in: 0..<4, using: &random) == 0 {
                        let name = existing[Int.random(in: 0..<existing.count, using: &random)]
                        device.store.delete(name, engine: device.engine)
                        trace.append("r\(round) \(device.name) delete \(name)")
                    } else {
                        edits += 1
                        let name = "p\(Int.random(in: 0..<Self.contactPool, using: &random))"
                        device.store.save("\(device.name) edit \(edits)", as: name, engine: device.engine)
                        trace.append("r\(round) \(device.name) save \(name)")
                    }
                }
                if Int.random(in: 0..<40, using: &random) == 0 {
                    trace.append("r\(round) \(device.name) resets the zone")
                    try await resetZone(by: device, devices: devices, seed: seed, trace: trace)
                }
                if Int.random(in: 0..<4, using: &random) == 0 {
                    let count = Int.random(in: 1...2, using: &random)
                    let code = Self.transientCodes[Int.random(in: 0..<Self.transientCodes.count, using: &random)]
                    server.failNextRequests(count, with: code)
                    trace.append("r\(round) fault \(count)×\(code)")
                }
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    trace.append("r\(round) \(device.name) send: \(await send(device))")
                case 1:
                    trace.append("r\(round) \(device.name) fetch: \(await fetch(device))")
                default:
                    trace.append("r\(round) \(device.name) send: \(await send(device)), fetch: \(await fetch(device))")
                }
            }
        }

        // Quiet rounds: no new faults (those already queued still strike); every device sends,
        // then every device fetches, until a round goes through with nothing left pending.
        var settled = false
        for round in 0..<20 {
            var clean = true
            for device in devices {
                let outcome = await send(device)
                if outcome != "ok" { clean = false }
                trace.append("quiet\(round) \(device.name) send: \(outcome)")
            }
            for device in devices {
                let outcome = await fetch(device)
                if outcome != "ok" { clean = false }
                trace.append("quiet\(round) \(device.name) fetch: \(outcome)")
            }
            devices.forEach(pruneOrphans)
            if clean, devices.allSatisfy({ $0.engine.state.pendingRecordZoneChanges.isEmpty && $0.engine.state.pendingDatabaseChanges.isEmpty }) {
                settled = true
                break
            }
        }
        let context = "seed \(seed) (replay with STRATUS_SYNC_SIMULATION_SEED=\(seed)); last steps:\n" + trace.suffix(40).joined(separator: "\n")
        XCTAssertTrue(settled, "the devices never settled; \(context)")

        let onServer = try await serverContacts(account)
        for device in devices {
            XCTAssertEqual(device.store.names, onServer.mapValues(\.name), "\(device.name) differs from the server; \(context)")
            for (recordID, _) in device.store.contacts {
                XCTAssertEqual(device.store.record(for: recordID)?.recordChangeTag, onServer[recordID.recordName]?.changeTag,
                               "\(device.name) keeps stale system fields for \(recordID.recordName); \(context)")
            }
        }
    }

    /// Deletes the zone and the device's local data, as Apple's sample app deletes server
    /// data; the deletion's push reaches every device, which fetches until it has seen it.
    private func resetZone(by device: Device, devices: [Device], seed: UInt64, trace: [String]) async throws {
        for recordID in device.store.contacts.keys { device.store.delete(recordID.recordName, engine: device.engine) }
        device.engine.state.remove(pendingRecordZoneChanges: device.engine.state.pendingRecordZoneChanges)
        device.engine.state.add(pendingDatabaseChanges: [.deleteZone(zoneID)])
        var deleted = false
        for _ in 0..<20 {
            _ = await send(device)
            if !device.engine.state.pendingDatabaseChanges.contains(.deleteZone(zoneID)) {
                deleted = true
                break
            }
        }
        XCTAssertTrue(deleted, "seed \(seed): \(device.name) could not delete the zone\n" + trace.suffix(20).joined(separator: "\n"))
        for other in devices {
            var fetched = false
            for _ in 0..<20 {
                if await fetch(other) == "ok" {
                    fetched = true
                    break
                }
            }
            XCTAssertTrue(fetched, "seed \(seed): \(other.name) could not fetch the zone's deletion")
        }
    }

    /// Sends, as an app does: errors are the delegate's business. Returns "ok" or the error.
    private func send(_ device: Device) async -> String {
        pruneOrphans(device)
        do {
            try await device.engine.sendChanges()
            return "ok"
        } catch {
            return describe(error)
        }
    }

    /// Fetches, as an app does. Returns "ok" or the error.
    private func fetch(_ device: Device) async -> String {
        do {
            try await device.engine.fetchChanges()
            return "ok"
        } catch {
            return describe(error)
        }
    }

    /// Drops pending saves of contacts the store no longer has (another device deleted them,
    /// or the zone), as Apple's sample app does in its record provider.
    private func pruneOrphans(_ device: Device) {
        let contacts = device.store.contacts
        let orphans = device.engine.state.pendingRecordZoneChanges.filter { change in
            if case .saveRecord(let recordID) = change { return contacts[recordID] == nil }
            return false
        }
        device.engine.state.remove(pendingRecordZoneChanges: orphans)
    }

    private func describe(_ error: any Error) -> String {
        guard let error = error as? CKError else { return "\(error)" }
        guard let items = error.partialErrorsByItemID else { return "\(error.code)" }
        let codes = items.values.compactMap { ($0 as? CKError)?.code }.map { "\($0)" }.sorted()
        return "partialFailure\(codes)"
    }

    /// The contacts on the server, read by another device of the account from the start of
    /// the zone's history: name and change tag by record name (none when there is no zone).
    private func serverContacts(_ account: String) async throws -> [String: (name: String, changeTag: String?)] {
        let database = server.container(identifier: identifier, account: account).privateCloudDatabase
        var contacts: [String: (name: String, changeTag: String?)] = [:]
        var token: CKServerChangeToken?
        while true {
            let changes: (modificationResultsByID: [CKRecord.ID: Result<CKDatabase.RecordZoneChange.Modification, any Error>], deletions: [CKDatabase.RecordZoneChange.Deletion], changeToken: CKServerChangeToken, moreComing: Bool)
            do {
                changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: token)
            } catch let error as CKError where error.code == .zoneNotFound {
                return [:]
            }
            for case (let recordID, .success(let modification)) in changes.modificationResultsByID {
                contacts[recordID.recordName] = (modification.record["name"] as? String ?? "", modification.record.recordChangeTag)
            }
            for deletion in changes.deletions { contacts[deletion.recordID.recordName] = nil }
            token = changes.changeToken
            if !changes.moreComing { return contacts }
        }
    }
}
