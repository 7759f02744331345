import StratusWire

extension CloudServer {
    /// Whether a subscription's notification info may ask for a silent push
    /// (`shouldSendContentAvailable`) and set UI keys (an alert, a sound or a badge) at once.
    ///
    /// `false` (the default) follows the WWDC 2015 talk: such a subscription is refused with
    /// `invalidArguments`, because a push with UI keys is not silent. `true` follows the newer
    /// rule, under which CloudKit accepts it and the push both wakes the app and shows the UI.
    public var allowsSilentPushesWithUIKeys: Bool {
        get { storeSettings.allowsSilentPushesWithUIKeys }
        set { storeSettings.allowsSilentPushesWithUIKeys = newValue }
    }
}
