import { contribute } from '../panels/registry'
import { switchModel } from '../palette/slashActions'
import { PickerDialog } from './PickerDialog'
import { MODEL_PICKER_PANEL, openModelPicker } from './pickerState'

/** Models: the picker (not while replaying: it acts on the live chat) and `/model [NAME]`. */
export const contributeModels = (): (() => void) =>
  contribute({
    feature: 'models',
    dialogs: [{ id: MODEL_PICKER_PANEL, component: PickerDialog, liveOnly: true }],
    commands: [
      {
        id: 'switch-model',
        slash: 'model',
        title: 'Switch model',
        hint: 'Ollama, OpenAI or an OpenAI-compatible server',
        keywords: 'provider ollama openai pull api key',
        args: '[NAME]',
        run: (arg) => (arg ? switchModel(arg) : openModelPicker()),
      },
    ],
  })
