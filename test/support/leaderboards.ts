/** The reward tiers the prize tests give a board: 100 gold and a gem for first place, 10 gold for second and third. */
export function prizeTiers(gold: string, gem: string) {
  return [
    {
      rankFrom: 1,
      rankTo: 1,
      items: [
        { itemUid: gold, quantity: 100 },
        { itemUid: gem, quantity: 1 },
      ],
    },
    { rankFrom: 2, rankTo: 3, items: [{ itemUid: gold, quantity: 10 }] },
  ];
}
