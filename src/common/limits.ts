/**
 * The shape limits of what players write, in one place: the DTOs' validators read them, so they are
 * the `maxItems` / `maxLength` of the OpenAPI document and the SDK's types, and SECURITY.md and the
 * README's "Limits" table list them. They are part of the API's contract, so they are constants, not
 * settings: a studio that needs bigger sessions raises them here and runs `npm run sdk` (the document
 * and the SDK follow). Budgets that are operations' business (rates, the answer size, the inbox,
 * retention) are settings (src/config/environment.schema.ts).
 */
export const LIMITS = {
  /** Seats in a session (numTeams × teamSize): a lobby of 100, a raid of 40, a battle royale of 100 in teams. */
  sessionPlayers: 100,
  /** Teams in a session or a ticket's wanted session. */
  sessionTeams: 100,
  /** Users a session invites. */
  sessionInvited: 100,
  /** Users on one ticket (a party, which sits on one team). */
  ticketUsers: 100,
  /** Criteria and statistics on one ticket, each. */
  ticketCriteria: 32,
  ticketStatistics: 32,
  /** Characters of a statistic's or criterion's name, and of a string value. */
  ticketNameLength: 64,
  ticketValueLength: 256,
  /** Objects one storage write, read or delete names (docs/GUIDE.md, "Cloud save"). */
  storageBatch: 100,
  /** Storage writes one economy transaction carries, committed with it. */
  transactionStorageWrites: 10,
  /** Characters of a device id: long enough to be a secret nobody guesses (a UUID is 36). */
  deviceIdMinLength: 16,
  deviceIdMaxLength: 128,
  /** Devices linked to one account (a phone, a tablet, a PC, a few replaced ones); unlink one to link another. */
  devicesPerUser: 10,
  /** Reward tiers of a leaderboard, items per tier, and the last rank a tier may reach. */
  leaderboardRewardTiers: 32,
  leaderboardRewardItems: 10,
  leaderboardRewardRank: 100_000,
  /** Bytes of a board's metadata, and of a record's (records are read a hundred at a time). */
  leaderboardMetadataBytes: 16_384,
  recordMetadataBytes: 2048,
  /** Records one leaderboard read answers (a page, around a persona), and personas one friends read names. */
  leaderboardPage: 100,
  /** Bytes of a request body (any route). */
  bodyBytes: 1024 * 1024,
  /** Levels a JSON body may nest (the body itself is level 1). */
  bodyDepth: 64,
} as const;

/**
 * JSON values (objects, arrays, strings, numbers, literals) a request body may hold, by route family:
 * counted on the text before it is parsed, since what a body costs to read and check grows with its
 * values, not its bytes. A route takes `standard` unless it declares another with @BodyNodes().
 */
export const BODY_NODES = {
  /** Every route not named below: sign-ins, records, scores, storage reads and deletes. */
  standard: 4_096,
  /** Sessions (100 teams of 100), leaderboards (16 KiB of metadata), skill progress (16 KiB of JSON). */
  large: 32_768,
  /** Cloud save writes and economy transactions, which carry storage values. */
  saves: 65_536,
} as const;
export type BodyNodesFamily = keyof typeof BODY_NODES;
