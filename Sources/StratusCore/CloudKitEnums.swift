// CloudKit's enumerations that Swift imports from Objective-C (`CKError.Code`,
// `CKAccountStatus`, `CKDatabase.Scope`) are declared in C, in CStratus, so that they are
// non-frozen as CloudKit's are. Code that imports only StratusCore sees them too.
@_exported import CStratus
