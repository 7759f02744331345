import ClownCentral
import Foundation
import Stratus

// The Stratus demo: the Clown Central story and photo browsing of WWDC 2014's "Advanced
// CloudKit" and the photo upload of WWDC 2015's "CloudKit Tips and Tricks", on an embedded
// server; a second device keeping a cache of notes through zone changes; a laptop that missed
// pushes while offline and recovers through the notification collection; the app start-up
// graph of WWDC 2015's "Advanced NSOperations" with the retry and batch-splitting recipes;
// two devices syncing contacts through CKSyncEngine, with a conflict resolved in the
// delegate; a party shared with two friends, one who may write and one who may not; parties
// near the park, by distance; then a look at the value model.

let server = CloudServer(clock: ManualClock())
let report = try await ClownCentral.run(on: server) { print("• \($0)") }
print("")
print("Attendees: \(report.attendees.joined(separator: ", ")); party tag \(report.tagAfterPhotos ?? "?") before and after the photos.")

print("")
_ = try await PhotoUpload.run(on: server) { print("• \($0)") }

print("")
_ = try await PhotoBrowsing.run(on: server) { print("• \($0)") }

print("")
_ = try await NotesSync.run(on: server) { print("• \($0)") }

print("")
_ = try await DroppedPushes.run(on: server) { print("• \($0)") }

print("")
_ = try await AppStartup.run(on: server) { print("• \($0)") }

print("")
let contacts = try await ContactsSync.run(on: server) { print("• \($0)") }
print("Contacts: \(contacts.contactCounts.phone) on the phone, \(contacts.contactCounts.laptop) on the laptop, equal: \(contacts.storesEqual); sent in batches of \(contacts.firstSendBatches.map(String.init).joined(separator: " and ")); conflicts resolved: \(contacts.conflictsResolved.laptop).")

print("")
let planning = try await PartyPlanning.run(on: server) { print("• \($0)") }
print("Shared party: Coco saw \(planning.attendeesSeen.coco.count) attendees, the organizer now has \(planning.organizerAttendees.count); Pippo's write: \(planning.pippoWriteError?.title ?? "allowed").")

print("")
_ = try await NearbyParties.run(on: server) { print("• \($0)") }

print("")
print("The value model, as CloudKit code uses it:")
let party = CKRecord(recordType: "Party", recordID: CKRecord.ID(recordName: "clown-party"))
party["title"] = "Clowns at the park"
party["attendees"] = 12
party["tags"] = ["balloons", "juggling"]
print("  \(party)")
print("  attendees as Int: \(party["attendees"] as? Int ?? 0), as Double: \(party["attendees"] as? Double ?? 0)")
print("  changed keys before the first save: \(party.changedKeys())")
let archive = try NSKeyedArchiver.archivedData(withRootObject: party, requiringSecureCoding: true)
let restored = try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: archive)
print("  archived to \(archive.count) bytes and back: \(restored?["title"] as? String ?? "?")")
