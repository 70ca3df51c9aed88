// The API's shapes for the UI's JSDoc, from the types generated out of the committed
// openapi/openapi.json (`npm run gen-api` writes ../../types/api.d.ts; `./test.sh web` fails when
// it is stale). Nothing here is hand-written: each name is the schema's own.

/**
 * @typedef {import('../../types/api').components['schemas']} Schemas
 * @typedef {Schemas['TableInfo']} TableInfo
 * @typedef {Schemas['TableResponse']} TableResponse
 * @typedef {Schemas['View']} View
 * @typedef {Schemas['PlayerView']} PlayerView
 * @typedef {Schemas['GhostView']} GhostView
 * @typedef {Schemas['CardView']} CardView
 * @typedef {Schemas['ClockView']} ClockView
 * @typedef {Schemas['Prompt']} Prompt
 * @typedef {Schemas['ViewEvent']} ViewEvent
 * @typedef {Schemas['ReplayStep']} ReplayStep
 * @typedef {Schemas['ReplaySteps']} ReplaySteps
 * @typedef {Schemas['ReplayFrame']} ReplayFrame
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
