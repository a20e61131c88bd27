// What an app names beside the client — the session, its states, banners, presentation, snapshots, errors,
// credentials, server identities — comes with `import LifelineStoat`, without a second import.
@_exported public import Lifeline
@_exported public import LifelineCore
