extension CKRecord {
    /// The record types CloudKit defines.
    public enum SystemType {
        /// The type of user records: `Users`.
        public static let userRecord: CKRecord.RecordType = "Users"
        /// The type of shares (``CKShare``): `cloudkit.share`.
        public static let share: CKRecord.RecordType = "cloudkit.share"
    }

    /// The keys under which queries and sort descriptors name a record's system fields.
    public enum SystemFieldKey {
        /// The record's ID.
        public static var recordID: CKRecord.FieldKey { "___recordID" }
        /// The creating user's record ID.
        public static var creatorUserRecordID: CKRecord.FieldKey { "___createdBy" }
        /// The creation date.
        public static var creationDate: CKRecord.FieldKey { "___createTime" }
        /// The last modifying user's record ID.
        public static var lastModifiedUserRecordID: CKRecord.FieldKey { "___modifiedBy" }
        /// The modification date.
        public static var modificationDate: CKRecord.FieldKey { "___modTime" }
        /// The record's parent reference.
        public static let parent: CKRecord.FieldKey = "___parent"
        /// The record's share reference.
        public static let share: CKRecord.FieldKey = "___share"
    }
}
