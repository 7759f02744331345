import Foundation
import StratusCore
import StratusOperations

/// Stratus's merges for `serverRecordChanged` conflicts, for ``ConflictResolvingSaveOperation``
/// and `CKDatabase.saveResolvingConflicts(...)`.
///
/// CloudKit tells apps to merge their change into the server's record (the error's
/// `serverRecord`) and save that, never the record they tried to save: its change tag is old,
/// so it conflicts again.
public enum RecordMerge {
    /// The default merge: the client's changes applied to the server's record.
    ///
    /// For every key the client changed (`changedKeys()`, plain and encrypted), the client's
    /// value replaces the server's, except for lists, which merge three ways: the server's list
    /// keeps its order, loses the elements the client removed since the ancestor, and gains the
    /// elements the client added, after its own. Both sides' additions survive, and so do both
    /// sides' removals. A `parent` the client changed replaces the server's.
    ///
    /// ```swift
    /// // ancestor ["John"], server ["John", "Alice"], client ["John", "Bob"]
    /// // merged: ["John", "Alice", "Bob"]
    /// ```
    ///
    /// Keys the client did not change keep the server's values.
    public static let `default`: RecordConflictMerge = { server, client, ancestor in
        applyingClientChanges(server: server, client: client, ancestor: ancestor)
    }

    /// Applies `client`'s changed keys to `server` and returns it, as ``default`` does.
    ///
    /// - Parameters:
    ///   - server: The server's record; it is changed and returned.
    ///   - client: The record whose changes win.
    ///   - ancestor: The version the client's changes were based on; nil counts every element
    ///     of the client's lists as added.
    /// - Returns: `server`, with the client's changes.
    public static func applyingClientChanges(server: CKRecord, client: CKRecord, ancestor: CKRecord?) -> CKRecord {
        for key in client.changedKeys() {
            let merged = mergedValue(client: client.object(forKey: key), server: server.object(forKey: key), ancestor: ancestor?.object(forKey: key))
            server.setObject(merged as? any __CKRecordObjCValue, forKey: key)
        }
        let clientEncrypted = client.encryptedValues
        let serverEncrypted = server.encryptedValues
        for key in clientEncrypted.changedKeys() {
            let merged = mergedValue(
                client: clientEncrypted.object(forKey: key),
                server: serverEncrypted.object(forKey: key),
                ancestor: ancestor?.encryptedValues.object(forKey: key)
            )
            serverEncrypted.setObject(merged as? any __CKRecordObjCValue, forKey: key)
        }
        if client.parent?.recordID != ancestor?.parent?.recordID {
            server.parent = client.parent
        }
        return server
    }

    /// Merges one list three ways: the server's elements minus those the client removed since
    /// the ancestor, then the client's additions the server did not make too. Lists count
    /// repeated elements: a client that adds a second copy of an element keeps it.
    ///
    /// - Parameters:
    ///   - ancestor: The list both sides started from (empty when unknown).
    ///   - server: The server's list now.
    ///   - client: The client's list now.
    /// - Returns: The merged list. Elements compare with `isEqual(_:)`.
    public static func mergeLists(ancestor: [Any], server: [Any], client: [Any]) -> [Any] {
        /// Removes one element equal to `element` from `list`; false when there is none.
        func removeOne(_ element: Any, from list: inout [Any]) -> Bool {
            guard let index = list.firstIndex(where: { same($0, element) }) else { return false }
            list.remove(at: index)
            return true
        }
        /// `list` minus `other`, counting repeats: the elements `list` has more often.
        func difference(_ list: [Any], _ other: [Any]) -> [Any] {
            var unmatched = other
            return list.filter { !removeOne($0, from: &unmatched) }
        }
        var removedByClient = difference(ancestor, client)
        var addedByServer = difference(server, ancestor)
        var merged = server.filter { !removeOne($0, from: &removedByClient) }
        for element in difference(client, ancestor) where !removeOne(element, from: &addedByServer) {
            merged.append(element)
        }
        return merged
    }

    private static func mergedValue(client: Any?, server: Any?, ancestor: Any?) -> Any? {
        guard let clientList = client as? NSArray else { return client }
        let serverList = (server as? NSArray).map(elements) ?? []
        let ancestorList = (ancestor as? NSArray).map(elements) ?? []
        return NSArray(array: mergeLists(ancestor: ancestorList, server: serverList, client: elements(clientList)))
    }

    private static func elements(_ array: NSArray) -> [Any] {
        array.map { $0 }
    }

    private static func same(_ lhs: Any, _ rhs: Any) -> Bool {
        if let left = lhs as? NSObject, let right = rhs as? NSObject { return left.isEqual(right) }
        return false
    }
}
