import type { StatValue } from '../items/item.entity.js';

/**
 * The demo catalog of `npm run seed`: a small fantasy game's artwork, items, achievements and texts,
 * so that a newcomer's /docs answers with something to look at. Every record has a fixed uid: seeding
 * again finds it and leaves it alone (and puts back a demo record that was deleted).
 */

export interface DemoMediaAsset {
  uid: string;
  name: string;
  description: string;
  /** Variant key → file; `default` first. */
  files: Record<string, { mimetype: string; name: string; uri: string; sha256sum?: string }>;
}

export interface DemoItem {
  uid: string;
  name: string;
  description: string;
  cost: number;
  stats: Array<{ name: string; value: StatValue }>;
  assetId: string;
  iconAssetId: string;
  /** Listed before its children. */
  parentUID: string | null;
}

export interface DemoAchievement {
  uid: string;
  name: string;
  description: string;
  badge: string;
}

export interface DemoTextAsset {
  uid: string;
  name: string;
  description: string;
  text: Record<string, string>;
}

const CDN = 'https://cdn.example.com/demo';

/** An icon and its 64-pixel thumbnail, as a game's artwork pipeline would publish them. */
function artwork(uid: string, name: string, slug: string, description: string, sha256sum: string): DemoMediaAsset {
  return {
    uid,
    name,
    description,
    files: {
      default: { mimetype: 'image/png', name: `${slug}.png`, uri: `${CDN}/${slug}.png`, sha256sum },
      thumbnail: { mimetype: 'image/webp', name: `${slug}-64.webp`, uri: `${CDN}/${slug}-64.webp` },
    },
  };
}

export const MEDIA = {
  ironSword: '518ea593-d27b-43b8-931d-7a1022b4c599',
  steelSword: '0682c709-813a-4235-a103-147c7f78c5ff',
  emberforgedLongsword: 'c17067ca-1875-431d-955c-c8a774d41527',
  oakShield: '1a147c59-46d8-478b-b527-b8c9a3f1e42b',
  ironBandedShield: '6fdba5bb-2b38-47ee-982d-16db87c89467',
  healingPotion: 'c529cd9a-ad60-47c6-9454-ee3a5ae485b9',
  goldCoin: '8f0e19a1-16ac-4b1d-b842-a6883497baae',
  dragonScale: '9ec38e2f-7384-4302-9d75-6cfe64374b7a',
  firstVictoryBadge: '47c308a9-f677-4614-9558-715e59389e5b',
  treasureHunterBadge: '2cc4b670-eb80-4763-8d68-03b07bd31f8e',
  masterSmithBadge: 'a9006f72-1ddf-4728-83c8-2637981a80c0',
} as const;

export const ITEMS = {
  ironSword: '783c58fb-b0ba-4b75-9548-728aa2c0e84f',
  steelSword: '5446788f-d45c-4404-9a06-44f2667a21ab',
  emberforgedLongsword: '2fc5d592-479c-48f7-834b-074c12ccb508',
  oakShield: '5612d105-1eac-44dc-9e51-61d610594a23',
  ironBandedShield: 'ea277c46-b6d7-4ffc-8f0b-dbe4a6f88647',
  healingPotion: '4388d4f9-f2a4-46b9-b85e-ab68b6d6be10',
  greaterHealingPotion: '8d7e210f-f92d-4556-afe5-4d5d00af8df6',
  goldCoin: '8dd9af30-8bf7-4240-8976-e42e32b78d87',
  dragonScale: 'a4ac6603-7494-44ad-b081-b987b78789d0',
} as const;

export const DEMO_MEDIA_ASSETS: DemoMediaAsset[] = [
  artwork(
    MEDIA.ironSword,
    'Iron sword artwork',
    'items/iron-sword',
    'Inventory icon of the iron sword.',
    'b5d4045c3f466fa91fe2cc6abe79232a1a57cdf104f7a26e716e0a1e2789df78',
  ),
  artwork(
    MEDIA.steelSword,
    'Steel sword artwork',
    'items/steel-sword',
    'Inventory icon of the steel sword.',
    '7902699be42c8a8e46fbbb4501726517e86b22c56a189f7625a6da49081b2451',
  ),
  artwork(
    MEDIA.emberforgedLongsword,
    'Emberforged longsword artwork',
    'items/emberforged-longsword',
    'Inventory icon of the emberforged longsword, with its glowing edge.',
    '2c624232cdd221771294dfbb310aca000a0df6ac8b66b696d90ef06fdefb64a3',
  ),
  artwork(
    MEDIA.oakShield,
    'Oak shield artwork',
    'items/oak-shield',
    'Inventory icon of the oak shield.',
    '19581e27de7ced00ff1ce50b2047e7a567c76b1cbaebabe5ef03f7c3017bb5b7',
  ),
  artwork(
    MEDIA.ironBandedShield,
    'Iron-banded shield artwork',
    'items/iron-banded-shield',
    'Inventory icon of the iron-banded shield.',
    '4a44dc15364204a80fe80e9039455cc1608281820fe2b24f1e5233ade6af1dd5',
  ),
  artwork(
    MEDIA.healingPotion,
    'Healing potion artwork',
    'items/healing-potion',
    'Inventory icon shared by the healing potions.',
    '4fc82b26aecb47d2868c4efbe3581732a3e7cbcc6c2efb32062c08170a05eeb8',
  ),
  artwork(
    MEDIA.goldCoin,
    'Gold coin artwork',
    'items/gold-coin',
    'Inventory icon of the gold coin, the currency.',
    '6b51d431df5d7f141cbececcf79edf3dd861c3b4069f0b11661a3eefacbba918',
  ),
  artwork(
    MEDIA.dragonScale,
    'Dragon scale artwork',
    'items/dragon-scale',
    'Inventory icon of the dragon scale, a crafting material.',
    '3fdba35f04dc8c462986c992bcf875546257113072a909c162f7e470e581e278',
  ),
  artwork(
    MEDIA.firstVictoryBadge,
    'First victory badge',
    'badges/first-victory',
    'Badge of the First victory achievement.',
    '8527a891e224136950ff32ca212b45bc93f69fbb801c3b1ebedac52775f99e61',
  ),
  artwork(
    MEDIA.treasureHunterBadge,
    'Treasure hunter badge',
    'badges/treasure-hunter',
    'Badge of the Treasure hunter achievement.',
    'e629fa6598d732768f7c726b4b621285f9c3b85303900aa912017db7617d8bdb',
  ),
  artwork(
    MEDIA.masterSmithBadge,
    'Master smith badge',
    'badges/master-smith',
    'Badge of the Master smith achievement.',
    'b17ef6d19c7a5b1ee83b907c595526dcb1eb06db8227d650d5dda0a9f4ce8cd9',
  ),
];

export const DEMO_ITEMS: DemoItem[] = [
  {
    uid: ITEMS.ironSword,
    name: 'Iron sword',
    description: 'A plain but trusty blade, forged in the village smithy.',
    cost: 150,
    stats: [
      { name: 'damage', value: 12 },
      { name: 'speed', value: 1.0 },
      { name: 'twoHanded', value: false },
      { name: 'rarity', value: 'common' },
    ],
    assetId: 'sword-iron',
    iconAssetId: MEDIA.ironSword,
    parentUID: null,
  },
  {
    uid: ITEMS.steelSword,
    name: 'Steel sword',
    description: 'The iron sword reforged in steel: lighter, and keeps its edge.',
    cost: 420,
    stats: [
      { name: 'damage', value: 18 },
      { name: 'speed', value: 1.1 },
      { name: 'twoHanded', value: false },
      { name: 'rarity', value: 'uncommon' },
    ],
    assetId: 'sword-steel',
    iconAssetId: MEDIA.steelSword,
    parentUID: ITEMS.ironSword,
  },
  {
    uid: ITEMS.emberforgedLongsword,
    name: 'Emberforged longsword',
    description: 'Steel quenched in dragon fire. Its edge still glows.',
    cost: 1500,
    stats: [
      { name: 'damage', value: 31 },
      { name: 'fireDamage', value: 8 },
      { name: 'speed', value: 0.9 },
      { name: 'twoHanded', value: true },
      { name: 'rarity', value: 'epic' },
    ],
    assetId: 'sword-emberforged',
    iconAssetId: MEDIA.emberforgedLongsword,
    parentUID: ITEMS.steelSword,
  },
  {
    uid: ITEMS.oakShield,
    name: 'Oak shield',
    description: 'Oak planks and a leather strap: better than nothing.',
    cost: 90,
    stats: [
      { name: 'armor', value: 6 },
      { name: 'blockChance', value: 0.15 },
      { name: 'rarity', value: 'common' },
    ],
    assetId: 'shield-oak',
    iconAssetId: MEDIA.oakShield,
    parentUID: null,
  },
  {
    uid: ITEMS.ironBandedShield,
    name: 'Iron-banded shield',
    description: 'The oak shield bound in iron bands.',
    cost: 260,
    stats: [
      { name: 'armor', value: 11 },
      { name: 'blockChance', value: 0.22 },
      { name: 'rarity', value: 'uncommon' },
    ],
    assetId: 'shield-iron-banded',
    iconAssetId: MEDIA.ironBandedShield,
    parentUID: ITEMS.oakShield,
  },
  {
    uid: ITEMS.healingPotion,
    name: 'Healing potion',
    description: 'Restores 50 health. Tastes of mint and regret.',
    cost: 25,
    stats: [
      { name: 'heal', value: 50 },
      { name: 'stackable', value: true },
      { name: 'rarity', value: 'common' },
    ],
    assetId: 'potion-healing',
    iconAssetId: MEDIA.healingPotion,
    parentUID: null,
  },
  {
    uid: ITEMS.greaterHealingPotion,
    name: 'Greater healing potion',
    description: 'Restores 150 health over three seconds.',
    cost: 80,
    stats: [
      { name: 'heal', value: 150 },
      { name: 'healDurationSeconds', value: 3 },
      { name: 'stackable', value: true },
      { name: 'rarity', value: 'uncommon' },
    ],
    assetId: 'potion-healing-greater',
    iconAssetId: MEDIA.healingPotion,
    parentUID: ITEMS.healingPotion,
  },
  {
    uid: ITEMS.goldCoin,
    name: 'Gold coin',
    description: 'The currency of the realm.',
    cost: 1,
    stats: [
      { name: 'currency', value: true },
      { name: 'stackable', value: true },
    ],
    assetId: 'currency-gold',
    iconAssetId: MEDIA.goldCoin,
    parentUID: null,
  },
  {
    uid: ITEMS.dragonScale,
    name: 'Dragon scale',
    description: 'Warm to the touch. Smiths pay well for it.',
    cost: 500,
    stats: [
      { name: 'craftingMaterial', value: true },
      { name: 'stackable', value: true },
      { name: 'rarity', value: 'rare' },
    ],
    assetId: 'material-dragon-scale',
    iconAssetId: MEDIA.dragonScale,
    parentUID: null,
  },
];

export const DEMO_ACHIEVEMENTS: DemoAchievement[] = [
  {
    uid: '5d96ebd3-f610-431c-b7f1-bed2dd33d912',
    name: 'First victory',
    description: 'Win your first match.',
    badge: MEDIA.firstVictoryBadge,
  },
  {
    uid: '17b8aec7-fd9b-46a8-90cd-799660b23377',
    name: 'Treasure hunter',
    description: 'Hold 1,000 gold coins at once.',
    badge: MEDIA.treasureHunterBadge,
  },
  {
    uid: '303ae01b-12e6-4340-a136-392fb637385d',
    name: 'Master smith',
    description: 'Forge the emberforged longsword.',
    badge: MEDIA.masterSmithBadge,
  },
  {
    uid: '45885344-772a-451c-8503-e9ef539f9786',
    name: 'Fair trader',
    description: 'Complete ten trades with other players.',
    badge: `${CDN}/badges/fair-trader.png`,
  },
];

/** `default` is the English text; `en` and `pt-BR` name the two languages the demo game ships. */
export const DEMO_TEXT_ASSETS: DemoTextAsset[] = [
  {
    uid: '97f97741-3ebf-4255-a73e-c9d68c057152',
    name: 'Welcome banner',
    description: 'Shown on the title screen.',
    text: {
      default: 'Welcome back, adventurer!',
      en: 'Welcome back, adventurer!',
      'pt-BR': 'Bem-vindo de volta, aventureiro!',
    },
  },
  {
    uid: 'c821b131-2f65-46d1-b8ec-3bbf1f04a61b',
    name: 'Matchmaking in progress',
    description: 'Shown while a ticket is SEARCHING.',
    text: {
      default: 'Searching for worthy opponents…',
      en: 'Searching for worthy opponents…',
      'pt-BR': 'Procurando oponentes à altura…',
    },
  },
  {
    uid: '4a6bad34-2607-4623-ba8d-2f1ad8e8c2da',
    name: 'Trade offer received',
    description: 'Notification when another player offers a trade; {player} is their persona name.',
    text: {
      default: '{player} offers you a trade.',
      en: '{player} offers you a trade.',
      'pt-BR': '{player} oferece uma troca para você.',
    },
  },
  {
    uid: 'dd48b0e2-305a-4e7e-b815-2946909c782f',
    name: 'Iron sword lore',
    description: 'Item card text of the iron sword.',
    text: {
      default: 'A plain but trusty blade, forged in the village smithy.',
      en: 'A plain but trusty blade, forged in the village smithy.',
      'pt-BR': 'Uma lâmina simples, mas confiável, forjada na ferraria da vila.',
    },
  },
];
