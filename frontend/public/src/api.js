// The API's shapes for the UI's JSDoc, from the types generated out of the committed
// openapi/openapi.json (`npm run gen-api` writes ../../types/api.d.ts; `./test.sh web` fails when
// it is stale). Nothing here is hand-written: each name is the schema's own, except that the
// bodies which carry a table's game (`view`, `event`: `AnyView`, `AnyViewEvent`, either game's) are
// narrowed to The Final Flicker's, the only game the UI shows so far.

/**
 * @typedef {import('../../types/api').components['schemas']} Schemas
 * @typedef {Schemas['TableInfo']} TableInfo
 * @typedef {Omit<Schemas['TableResponse'], 'view'> & { view?: View }} TableResponse
 * @typedef {Schemas['View']} View
 * @typedef {Schemas['PlayerView']} PlayerView
 * @typedef {Schemas['GhostView']} GhostView
 * @typedef {Schemas['CardView']} CardView
 * @typedef {Schemas['ClockView']} ClockView
 * @typedef {Schemas['Prompt']} Prompt
 * @typedef {Schemas['ViewEvent']} ViewEvent
 * @typedef {Omit<Schemas['ReplayStep'], 'event' | 'view'> & { event: ViewEvent, view: View }} ReplayStep
 * @typedef {Omit<Schemas['ReplaySteps'], 'steps'> & { steps: ReplayFrame[] }} ReplaySteps
 * @typedef {Omit<Schemas['ReplayFrame'], 'event' | 'view'> & { event: ViewEvent, view: View }} ReplayFrame
 * @typedef {Schemas['PositionAt']} PositionAt
 * @typedef {Schemas['GatheringSummary']} GatheringSummary
 * @typedef {Schemas['GatheringSettings']} GatheringSettings
 * @typedef {Schemas['CreateGatheringBody']} CreateGatheringBody
 * @typedef {Schemas['Bracket']} Bracket
 * @typedef {Schemas['StageView']} StageView
 * @typedef {Schemas['CircleView']} CircleView
 * @typedef {Schemas['CirclePlayer']} CirclePlayer
 * @typedef {Schemas['Standing']} Standing
 * @typedef {Schemas['Registrant']} Registrant
 * @typedef {Schemas['ClassId']} ClassId
 * @typedef {Schemas['Status']} GatheringStatus
 * @typedef {Schemas['TableGathering']} TableGathering
 * @typedef {Schemas['TableList']} TableList
 * @typedef {Schemas['LiveTable']} LiveTable
 * @typedef {Schemas['CirclePreview']} CirclePreview
 */

export {};
