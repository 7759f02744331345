import Foundation

/// A type whose values a record field can hold: CloudKit's `CKRecordValueProtocol`.
///
/// `String`, every integer type, `Float`, `Double`, `Bool`, `Date`, `Data`,
/// ``CKRecord/Reference``, ``CKAsset``, `CLLocation`, their Foundation counterparts (`NSString`, `NSNumber`,
/// `NSDate`, `NSData`, `NSArray`), and arrays of these conform. The generic record subscript
/// takes any of them:
///
/// ```swift
/// record["title"] = "Clown party"
/// let count: Int? = record["attendees"]
/// ```
///
/// Do not conform your own types: a record stores only CloudKit's field types.
public protocol CKRecordValueProtocol {}

/// A value a record stores, as CloudKit's Objective-C API types it (`CKRecordValue`).
///
/// CloudKit lets Foundation objects conform and bridges Swift values to them with `as`. Linux
/// has no implicit bridging, so in Stratus the Swift value types conform too; that way
/// `name as CKRecordValue` and `record.setObject(count as CKRecordValue, forKey: "count")`
/// compile unchanged.
public protocol __CKRecordObjCValue: CKRecordValueProtocol {}

/// CloudKit's name for a value a record field can hold.
public typealias CKRecordValue = __CKRecordObjCValue

extension String: __CKRecordObjCValue {}
extension Bool: __CKRecordObjCValue {}
extension Int: __CKRecordObjCValue {}
extension Int8: __CKRecordObjCValue {}
extension Int16: __CKRecordObjCValue {}
extension Int32: __CKRecordObjCValue {}
extension Int64: __CKRecordObjCValue {}
extension UInt: __CKRecordObjCValue {}
extension UInt8: __CKRecordObjCValue {}
extension UInt16: __CKRecordObjCValue {}
extension UInt32: __CKRecordObjCValue {}
extension UInt64: __CKRecordObjCValue {}
extension Float: __CKRecordObjCValue {}
extension Double: __CKRecordObjCValue {}
extension Date: __CKRecordObjCValue {}
extension Data: __CKRecordObjCValue {}
extension Array: CKRecordValueProtocol where Element: CKRecordValueProtocol {}
extension Array: __CKRecordObjCValue where Element: CKRecordValueProtocol {}
extension NSString: __CKRecordObjCValue {}
extension NSNumber: __CKRecordObjCValue {}
extension NSDate: __CKRecordObjCValue {}
extension NSData: __CKRecordObjCValue {}
extension NSArray: __CKRecordObjCValue {}
