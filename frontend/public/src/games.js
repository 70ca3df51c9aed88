// The platform's two games (`GameName`) and the words of their gatherings: The Final Flicker's
// end in the Final Ritual (R9.4) and send on their Last Lit (R9.5); Let's Call the Exorcist's
// end at a Final table of 4 to 8 and advance the best-placed by points (X2.1, X7.6;
// docs/rules-decisions.md 72-74). Both draw stages of circles (R9.2).

/** @typedef {import('./api.js').Schemas['GameName']} GameName */

/** The Exorcist's id on the platform (`GameName`). */
export const EXORCIST = 'lets-call-the-exorcist';

/** Every game by its id, as people call it. @type {Record<GameName, string>} */
export const GAME_TITLE = { 'the-final-flicker': 'The Final Flicker', 'lets-call-the-exorcist': "Let's Call the Exorcist" };

/**
 * The words a gathering of `game` uses: its last stage (a single circle), the line naming
 * those a finished qualifying circle sends on, and the fewest players a start takes (X2.1: 4
 * for the Exorcist; The Final Flicker starts with any number, R9.10.1).
 * @param {GameName | null | undefined} game absent: The Final Flicker
 */
export function gatheringWords(game) {
  return game === EXORCIST
    ? { final: 'Final table', sentOn: 'Advanced', minPlayers: 4 }
    : { final: 'Final Ritual', sentOn: 'Sent on', minPlayers: 0 };
}
