import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { App } from './App'
import { contributeFeatures } from './panels/features'
import './styles.css'
import './ui.css'

const container = document.getElementById('root')
if (!container) throw new Error('index.html has no #root element')

contributeFeatures()
createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
)
