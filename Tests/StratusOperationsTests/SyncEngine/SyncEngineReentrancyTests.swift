import Foundation
import Stratus
import Synchronization
import XCTest

/// Calls back into an engine from inside its own delegate, which the engine is waiting for:
/// they fail or return at once instead of hanging the app.
final class SyncEngineReentrancyTests: SyncEngineTestCase {
    func testAwaitingASyncInsideTheDelegateThrowsInvalidArgumentsInsteadOfWaitingForItself() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        let codes = Mutex<[CKError.Code]>([])
        a.delegate.onEvent = { event, engine in
            guard case .willSendChanges = event else { return }
            do { try await engine.sendChanges() } catch let error as CKError { codes.withLock { $0.append(error.code) } } catch {}
            do { try await engine.fetchChanges() } catch let error as CKError { codes.withLock { $0.append(error.code) } } catch {}
        }

        try await a.engine.sendChanges()

        XCTAssertEqual(codes.withLock { $0 }, [.invalidArguments, .invalidArguments])
        XCTAssertTrue(a.engine.state.pendingDatabaseChanges.isEmpty, "the outer send went on and sent the zone")
    }

    func testCancellingInsideTheDelegateStopsTheSendWithoutWaitingForIt() async throws {
        let a = notesDevice()
        let zone = CKRecordZone(zoneName: "Notes")
        a.engine.state.add(pendingDatabaseChanges: [.saveZone(zone)])
        a.engine.state.add(pendingRecordZoneChanges: noteIDs(3, in: zone.zoneID).map { .saveRecord($0) })
        a.delegate.onEvent = { event, engine in
            if case .sentDatabaseChanges = event { await engine.cancelOperations() }
        }

        do {
            try await a.engine.sendChanges()
            XCTFail("a cancelled send throws")
        } catch let error as CKError {
            XCTAssertEqual(error.code, .operationCancelled)
        }
        XCTAssertEqual(a.engine.state.pendingRecordZoneChanges.count, 3, "the records were not sent and stay pending")
        XCTAssertEqual(a.delegate.names.last, "didSendChanges")
    }

    func testAnEngineDoesNotKeepItsDelegateAlive() {
        let container = server.container(identifier: identifier, account: "john")
        weak var released: RecordingNotesDelegate?
        var engine: CKSyncEngine?
        do {
            let delegate = RecordingNotesDelegate()
            released = delegate
            var configuration = CKSyncEngine.Configuration(database: container.privateCloudDatabase, stateSerialization: nil, delegate: delegate)
            configuration.automaticallySync = false
            engine = CKSyncEngine(configuration)
        }
        XCTAssertNil(released, "the engine holds its delegate weakly, as CloudKit's does")
        XCTAssertNotNil(engine)
    }
}
