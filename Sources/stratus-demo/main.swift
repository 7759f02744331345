import Foundation
import Stratus

// The Stratus demo: for now, CloudKit's value model on Linux.
// Later parts give it the talks' story against the embedded server.

let partyID = CKRecord.ID(recordName: "clown-party")
let party = CKRecord(recordType: "Party", recordID: partyID)
party["title"] = "Clowns at the park"
party["date"] = Date(timeIntervalSince1970: 1_767_225_600)
party["attendees"] = 12
party["tags"] = ["balloons", "juggling"]

let clown = CKRecord(recordType: "Clown")
clown["name"] = "Bozo"
clown["party"] = CKRecord.Reference(record: party, action: .deleteSelf)

print("A party record, as CloudKit code builds it:")
print("  \(party)")
print("  title: \(party["title"] as? String ?? "?")")
print("  attendees as Int: \(party["attendees"] as? Int ?? 0), as Double: \(party["attendees"] as? Double ?? 0)")
print("  tags: \(party["tags"] as? [String] ?? [])")
print("  changed keys: \(party.changedKeys())")
print("  change tag before the first save: \(party.recordChangeTag ?? "nil")")

print("A clown that belongs to the party (deleting the party deletes the clown):")
print("  \((clown["party"] as? CKRecord.Reference)?.description ?? "?")")

let archive = try NSKeyedArchiver.archivedData(withRootObject: party, requiringSecureCoding: true)
let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive)
print("Archived to \(archive.count) bytes and back: title = \(restored?["title"] as? String ?? "?")")

let coder = NSKeyedArchiver(requiringSecureCoding: true)
party.encodeSystemFields(with: coder)
coder.finishEncoding()
print("System fields only: \(coder.encodedData.count) bytes")

let conflict = CKError(.serverRecordChanged, userInfo: [NSLocalizedDescriptionKey: "record to insert already exists"])
print("An error, as a CloudKit user catches it:")
do {
    throw conflict
} catch CKError.serverRecordChanged {
    print("  caught serverRecordChanged: \(conflict.localizedDescription)")
} catch {
    print("  unexpected: \(error)")
}
